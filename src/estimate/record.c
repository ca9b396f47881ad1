/* estimate/record: the inputs record every reader of the estimate writes
 * into: where each input came from (a note naming the file and line, or
 * the launch word that gave it), what stays assumed, the task the head
 * implies. A leaf: it reads nodes and settings, and calls no reader. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

typedef oom_est_reader reader;

/* An input the launch command's argument decides: the word (or .sh line)
 * and the argument as written, and what it fed when that says more. */
static void note_given(reader *r, oom_provenance *p, const char *what)
{
    const oom_est_setting *s = r->via;
    char where[160];
    oom_launch_where(r->launch, s->given_word, where, sizeof where);
    bool says_more = strstr(what, s->name) == NULL;
    oom_est_printf(p->text, sizeof p->text, "%s: %s%s%s%s", where, s->given_said, says_more ? " (" : "",
             says_more ? what : "", says_more ? ")" : "");
    p->assumed = false; /* given_assumed is marked once every reader is done (oom_est_apply_launch) */
    p->line = s->given_word->line;
    p->col = 0;
}

void oom_est_note(reader *r, oom_input_kind k, TSNode at, const char *what)
{
    oom_provenance *p = &r->out->from[k];
    if (r->via && r->via->given && r->via->given_word && r->launch) {
        note_given(r, p, what);
        return;
    }
    char setting[128] = "";
    if (r->via) {
        /* the value is the setting's default: point at its declaration, where
         * a user changes it, and say which call reads it */
        oom_est_setting_describe(r->via, setting, sizeof setting);
        at = r->via->at;
    }
    uint32_t row = 0, col = 0;
    if (!ts_node_is_null(at))
        oom_source_position(r->src, ts_node_start_byte(at), &row, &col);
    oom_source_describe_line(r->src, r->path, row, p->text, sizeof p->text);
    size_t used = strlen(p->text);
    snprintf(p->text + used, sizeof p->text - used, " %s%s%s", what, setting[0] ? ", from " : "", setting);
    p->assumed = false;
    p->line = row;
    p->col = col;
}

void oom_est_assume(oom_script_inputs *s, oom_input_kind k, const char *what)
{
    snprintf(s->from[k].text, sizeof s->from[k].text, "%s", what);
    s->from[k].assumed = true;
    s->from[k].line = 0;
}

void oom_script_inputs_set_task(oom_script_inputs *s, oom_task t, const char *why)
{
    s->task = t;
    s->in.lm_head = oom_task_has_vocab_logits(t);
    if (why) {
        snprintf(s->from[OOM_IN_TASK].text, sizeof s->from[OOM_IN_TASK].text, "%s", why);
        s->from[OOM_IN_TASK].assumed = false;
        s->from[OOM_IN_TASK].line = 0;
    }
}

bool oom_script_inputs_is_image(const oom_script_inputs *s)
{
    return s->in.image_bytes > 0;
}

void oom_est_setting_describe(const oom_est_setting *s, char *buf, size_t size)
{
    if (s->kind == OOM_SETTING_MODULE)
        snprintf(buf, size, "%s (module level)", s->spelling);
    else if (s->kind == OOM_SETTING_CONFIG)
        snprintf(buf, size, "%s", s->given_said);
    else
        snprintf(buf, size, "%s default", s->spelling);
}
