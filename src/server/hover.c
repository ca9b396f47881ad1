/* server/hover: over a finding, its message and help, then the rule's
 * documentation as `oomlint rule CODE` prints it; over a rule code written
 * in the text (`# noqa: OOM201`), that rule's documentation. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static bool covers(const uint32_t span[4], uint32_t line, uint32_t character)
{
    bool after_start = line > span[0] || (line == span[0] && character >= span[1]);
    bool before_end = line < span[2] || (line == span[2] && character <= span[3]);
    return after_start && before_end;
}

static void add_rule_doc(srv_session *s, const char *code, oom_buf *md)
{
    const oom_rule *r = oom_rules_find(&s->profile.rules, code);
    if (r)
        oom_rule_describe(r, md);
}

/* The OOMnnn code the position is on in its line, if any. */
static bool code_at(const char *text, size_t len, const oom_line_index *ix, uint32_t line, uint32_t character,
                    oom_pos_encoding enc, char *code, size_t size)
{
    size_t at = oom_pos_to_offset(text, len, ix, line, character, enc), start, end;
    if (!oom_line_bounds(text, len, ix, line, &start, &end))
        return false;
    size_t b = at;
    while (b > start && ((text[b - 1] >= 'A' && text[b - 1] <= 'Z') || (text[b - 1] >= '0' && text[b - 1] <= '9')))
        b--;
    size_t e = at;
    while (e < end && ((text[e] >= 'A' && text[e] <= 'Z') || (text[e] >= '0' && text[e] <= '9')))
        e++;
    if (e - b < 4 || e - b >= size || strncmp(text + b, "OOM", 3) != 0)
        return false;
    memcpy(code, text + b, e - b);
    code[e - b] = '\0';
    return true;
}

void srv_on_hover(srv_session *s, const cJSON *id, const cJSON *params)
{
    size_t cell;
    const char *uri;
    srv_doc *doc = srv_request_doc(s, id, params, &cell, &uri);
    if (!doc)
        return;
    uint32_t line, character;
    if (!srv_position(cJSON_GetObjectItemCaseSensitive(params, "position"), &line, &character)) {
        srv_respond_error(s, id, RPC_INVALID_PARAMS, "position is missing or malformed");
        return;
    }
    srv_lint_due(s, srv_now_ms(), true);
    if (!s->have_profile || !s->profile.compiled) {
        srv_respond(s, id, NULL);
        return;
    }
    oom_buf md;
    oom_buf_init(&md);
    for (size_t i = 0; i < doc->diags.len; i++) {
        const oom_diag *d = &doc->diags.items[i];
        uint32_t span[4];
        srv_diag_span(s, doc, d, span);
        if (strcmp(srv_diag_uri(doc, d), uri) != 0 || !covers(span, line, character))
            continue;
        if (md.len)
            oom_buf_puts(&md, "\n\n---\n\n");
        oom_buf_printf(&md, "**%s** %s\n\n", d->code, d->message);
        if (d->help)
            oom_buf_printf(&md, "*help:* %s\n\n", d->help);
        add_rule_doc(s, d->code, &md);
    }
    const char *text;
    size_t len;
    const oom_line_index *ix;
    char code[16];
    if (!md.len && srv_doc_text_for(doc, cell == SIZE_MAX ? 0 : (uint32_t)cell + 1, &text, &len, &ix) &&
        code_at(text, len, ix, line, character, s->enc, code, sizeof code))
        add_rule_doc(s, code, &md);
    if (!md.len) {
        srv_respond(s, id, NULL);
    } else {
        cJSON *result = cJSON_CreateObject();
        cJSON *contents = cJSON_AddObjectToObject(result, "contents");
        cJSON_AddStringToObject(contents, "kind", "markdown");
        cJSON_AddStringToObject(contents, "value", md.data);
        srv_respond(s, id, result);
    }
    oom_buf_free(&md);
}
