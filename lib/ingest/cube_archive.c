/* The archive of a CUBE profile (ingest/cube_impl.h): a POSIX tar archive
 * whose members are found by name, and the zlib streams of the metric
 * data in them.
 * Nothing in the file is trusted: every size is checked against the bytes
 * there are. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "ingest/cube_impl.h"

#include <zlib.h>

#define TAR_BLOCK 512

/* ---- tar ------------------------------------------------------------------ */

/* A header's number field: octal digits (blanks and NULs around), or
 * base-256 when its first byte has the high bit set. -1 if neither. */
static int tar_number(const unsigned char *f, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] & 0x80) {
		if (f[0] != 0x80)
			return -1;	/* negative */
		for (i = 1; i < n; i++) {
			if (v >> 55)
				return -1;
			v = v << 8 | f[i];
		}
		*out = v;
		return 0;
	}
	while (i < n && f[i] == ' ')
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return -1;
		v = v * 8 + (uint64_t)(f[i] - '0');
	}
	while (i < n && (f[i] == ' ' || f[i] == '\0'))
		i++;
	if (i != n)
		return -1;
	*out = v;
	return 0;
}

pm_status pm__cube_tar_find(const pm_cube *c, const char *want, const unsigned char **data,
			  size_t *size, pm_error *err)
{
	size_t off = 0;

	*data = NULL;
	*size = 0;
	while (c->len - off >= TAR_BLOCK) {
		const unsigned char *h = c->buf + off;
		char name[256 + 2];
		size_t nl = strnlen((const char *)h, 100), pl = 0;
		uint64_t sz;

		if (!h[0])
			return PM_OK;	/* the end-of-archive block */
		if (tar_number(h + 124, 12, &sz))
			return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "a tar header at byte %zu "
					   "with no size: not a CUBE archive", off);
		if (sz > c->len - off - TAR_BLOCK)
			return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "tar member at byte %zu "
					   "is %llu bytes, past the end of the file", off,
					   (unsigned long long)sz);
		if (memcmp(h + 257, "ustar", 5) == 0)
			pl = strnlen((const char *)h + 345, 155);
		snprintf(name, sizeof(name), "%.*s%s%.*s", (int)pl, (const char *)h + 345,
			 pl ? "/" : "", (int)nl, (const char *)h);
		if ((h[156] == '0' || h[156] == '\0') &&
		    (!strcmp(name, want) || (!strncmp(name, "./", 2) && !strcmp(name + 2, want)))) {
			*data = h + TAR_BLOCK;
			*size = (size_t)sz;
			return PM_OK;
		}
		/* sz <= len: no overflow */
		off += TAR_BLOCK + ((size_t)sz + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
		if (off > c->len)
			return PM_OK;
	}
	return PM_OK;
}

/* ---- zlib ----------------------------------------------------------------- */

pm_status pm__cube_inflate(const pm_cube *c, const unsigned char *src, size_t n,
			      unsigned char *out, size_t cap, size_t *got, const char *what,
			      pm_error *err)
{
	z_stream z = { 0 };
	int rc;

	if (n > UINT32_MAX || cap > UINT32_MAX)
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: too large", what);
	if (inflateInit(&z) != Z_OK)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	z.next_in = (unsigned char *)(uintptr_t)src;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	rc = inflate(&z, Z_FINISH);
	*got = cap - z.avail_out;
	inflateEnd(&z);
	if (rc == Z_STREAM_END)
		return PM_OK;
	if (rc == Z_MEM_ERROR)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: %s", what,
			   rc == Z_BUF_ERROR && !z.avail_out ? "more data than the anchor says"
							    : "broken compressed data");
}
