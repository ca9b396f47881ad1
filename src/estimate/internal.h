/* estimate internals: what the readers of a script share (inputs.c reads the
 * Trainer / Hugging Face side, vision.c the torchvision side). */
#ifndef OOMLINT_ESTIMATE_INTERNAL_H
#define OOMLINT_ESTIMATE_INTERNAL_H

#include <tree_sitter/api.h>

#include "oomlint/estimate.h"
#include "oomlint/model.h"
#include "oomlint/source.h"

typedef struct {
    const char *path;
    oom_source *src;
    oom_pymodel *m;
    oom_script_inputs *out;
    const oom_kb *kb;
    TSNode root;
} oom_est_reader;

/* Records that input `k` came from the script at `at`, described by `what`. */
void oom_est_note(oom_est_reader *r, oom_input_kind k, TSNode at, const char *what);
/* Records that input `k` is an assumption. */
void oom_est_assume(oom_script_inputs *s, oom_input_kind k, const char *what);
/* The source text of `n` into buf; false when it does not fit. */
bool oom_est_text_of(const oom_est_reader *r, TSNode n, char *buf, size_t size);
/* Whether a keyword argument's value belongs to a torch.autocast call. */
bool oom_est_in_autocast_call(const oom_est_reader *r, TSNode keyword_value);

/* torchvision / timm image models, their input size, autocast, optimizer
 * classes and frozen layers (vision.c). */
void oom_est_read_vision(oom_est_reader *r);
/* Fills the image side of the inputs from a knowledge-base entry. */
void oom_est_use_image_model(oom_script_inputs *s, const oom_model *m);

#endif
