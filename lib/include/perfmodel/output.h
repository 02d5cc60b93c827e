/*
 * perfmodel/output.h — writing outputs safely: model.json and any text
 * atomically (temporary file, fsync, rename), and an output path checked
 * against the inputs it would destroy. Included by perfmodel.h; the
 * conventions there hold.
 */
#ifndef PERFMODEL_OUTPUT_H
#define PERFMODEL_OUTPUT_H

#include <stddef.h>
#include "perfmodel/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write model.json atomically: a temporary file in the same folder, fsync,
 * rename. A failure leaves no file behind and any old file untouched. */
PM_API pm_status pm_model_save_file(const pm_model *m, const char *path, pm_error *err);

/* Whether path can take an output, checked before any work is done: PM_OK
 * for a new file or a regular one (after symbolic links); PM_EIO for a FIFO,
 * device, socket or folder, and for the same file (device and inode) as one
 * of inputs[0..n) (NULL entries and "-" skipped), which the output would
 * destroy. */
PM_API pm_status pm_output_check(const char *path, const char *const *inputs, size_t n,
				 pm_error *err);
/* Write `len` bytes to `path` the same atomic way. What is at path decides
 * (pm_output_check): nothing or a regular file is replaced; a symbolic link
 * is followed and its target replaced, the link kept; a FIFO, device,
 * socket or folder is refused (PM_EIO). "-" is not standard output here:
 * the caller decides where that makes sense. */
PM_API pm_status pm_write_file_atomic(const char *path, const char *data, size_t len,
				      pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
