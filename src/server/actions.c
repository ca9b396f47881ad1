/* server/actions: code actions. Each finding's fix is a quick fix made of
 * the CLI's own edits (safe ones preferred, unsafe ones labelled);
 * source.fixAll.oomlint is what `oomlint --fix` makes of the buffer (the
 * fixer's rounds, src/fix/); and "Disable OOMxxx for this line" writes the
 * suppression comment the linter reads. */
#include <stdlib.h>
#include <string.h>

#include "oomlint/fixer.h"
#include "internal.h"

typedef struct {
    bool quickfix, fix_all;
} wanted_kinds;

static bool kind_covers(const char *asked, const char *kind)
{
    size_t n = strlen(asked);
    return strncmp(kind, asked, n) == 0 && (kind[n] == '\0' || kind[n] == '.');
}

static wanted_kinds read_only(const cJSON *context)
{
    const cJSON *only = cJSON_GetObjectItemCaseSensitive(context, "only");
    if (!cJSON_IsArray(only))
        return (wanted_kinds){true, true};
    wanted_kinds w = {false, false};
    const cJSON *k;
    cJSON_ArrayForEach(k, only) {
        if (!cJSON_IsString(k))
            continue;
        w.quickfix |= kind_covers(k->valuestring, "quickfix");
        w.fix_all |= kind_covers(k->valuestring, "source.fixAll.oomlint");
    }
    return w;
}

static cJSON *text_edit(cJSON *range, const char *text)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddItemToObject(e, "range", range);
    cJSON_AddStringToObject(e, "newText", text);
    return e;
}

/* {changes: {uri: edits}}: understood by every client. */
static cJSON *workspace_edit(const char *uri, cJSON *edits)
{
    cJSON *we = cJSON_CreateObject();
    cJSON_AddItemToObject(cJSON_AddObjectToObject(we, "changes"), uri, edits);
    return we;
}

static cJSON *action(const char *title, const char *kind, cJSON *diag, bool preferred, cJSON *edit)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "title", title);
    cJSON_AddStringToObject(a, "kind", kind);
    if (diag)
        cJSON_AddItemToArray(cJSON_AddArrayToObject(a, "diagnostics"), diag);
    if (preferred)
        cJSON_AddTrueToObject(a, "isPreferred");
    cJSON_AddItemToObject(a, "edit", edit);
    return a;
}

static void add_fix(srv_session *s, const srv_doc *doc, const char *uri, const oom_diag *d, cJSON *out)
{
    const oom_fix *f = d->fix;
    if (!f || f->applicability == OOM_FIX_DISPLAY_ONLY || f->edit_count == 0 ||
        !oom_selection_enabled(&s->profile.fixable, d->code, true))
        return;
    cJSON *edits = cJSON_CreateArray();
    for (size_t i = 0; i < f->edit_count; i++) {
        const oom_edit *e = &f->edits[i];
        cJSON_AddItemToArray(edits, text_edit(srv_range_json(s, doc, d->cell, e->start_row, e->start_col,
                                                             e->end_row, e->end_col),
                                              e->content));
    }
    oom_buf title;
    oom_buf_init(&title);
    oom_buf_printf(&title, "%s: %s", d->code, f->message);
    if (f->applicability == OOM_FIX_UNSAFE)
        oom_buf_puts(&title, " (unsafe fix: may change what the code does)");
    cJSON_AddItemToArray(out, action(title.data, "quickfix", srv_diag_to_lsp(s, doc, d),
                                     f->applicability == OOM_FIX_SAFE, workspace_edit(uri, edits)));
    oom_buf_free(&title);
}

/* Where `# noqa: CODE` goes on the finding's first line: after the codes
 * of a `# noqa:` already there, else at the end of the line. */
static void add_noqa(srv_session *s, const srv_doc *doc, const char *uri, const oom_diag *d, cJSON *out)
{
    const char *text;
    size_t len, start, end;
    const oom_line_index *ix;
    if (!srv_doc_text_for(doc, d->cell, &text, &len, &ix) || !oom_line_bounds(text, len, ix, d->start_row - 1, &start, &end))
        return;
    const char *line = text + start;
    size_t n = end - start;
    oom_buf insert;
    oom_buf_init(&insert);
    size_t at = n;
    const char *noqa = NULL;
    for (size_t i = 0; i + 7 <= n && !noqa; i++)
        if (strncmp(line + i, "# noqa:", 7) == 0)
            noqa = line + i;
    if (noqa) {
        at = (size_t)(noqa - line) + 7;
        while (at < n && (line[at] == ' ' || line[at] == ',' || (line[at] >= 'A' && line[at] <= 'Z') ||
                          (line[at] >= '0' && line[at] <= '9')))
            at++;
        while (at > 0 && line[at - 1] == ' ')
            at--;
        oom_buf_printf(&insert, ",%s", d->code);
    } else {
        oom_buf_printf(&insert, "%s# noqa: %s", n && line[n - 1] != ' ' ? "  " : "", d->code);
    }
    uint32_t character = oom_pos_units(line, at, s->enc);
    cJSON *range = cJSON_CreateObject();
    for (int k = 0; k < 2; k++) {
        cJSON *p = cJSON_AddObjectToObject(range, k ? "end" : "start");
        cJSON_AddNumberToObject(p, "line", d->start_row - 1);
        cJSON_AddNumberToObject(p, "character", character);
    }
    cJSON *edits = cJSON_CreateArray();
    cJSON_AddItemToArray(edits, text_edit(range, insert.data));
    oom_buf title;
    oom_buf_init(&title);
    oom_buf_printf(&title, "Disable %s for this line", d->code);
    cJSON_AddItemToArray(out, action(title.data, "quickfix", srv_diag_to_lsp(s, doc, d), false,
                                     workspace_edit(uri, edits)));
    oom_buf_free(&title);
    oom_buf_free(&insert);
}

static void offset_position(const srv_session *s, const srv_doc *doc, size_t off, cJSON *into, const char *name)
{
    size_t lo = 0, hi = doc->lines.count;
    while (hi - lo > 1) { /* the last line starting at or before off */
        size_t mid = (lo + hi) / 2;
        if (doc->lines.starts[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    size_t ls = doc->lines.count ? doc->lines.starts[lo] : 0;
    cJSON *p = cJSON_AddObjectToObject(into, name);
    cJSON_AddNumberToObject(p, "line", (double)lo);
    cJSON_AddNumberToObject(p, "character", oom_pos_units(doc->text.data + ls, off - ls, s->enc));
}

static bool fix_allowed(void *ctx, const oom_diag *d)
{
    return oom_selection_enabled(ctx, d->code, true);
}

/* The buffer through the fixer's rounds; one edit that replaces what differs. */
static void add_fix_all(srv_session *s, const srv_doc *doc, cJSON *out)
{
    if (doc->kind != DOC_PYTHON && doc->kind != DOC_JSON && doc->kind != DOC_YAML)
        return;
    oom_lang lang = doc->kind == DOC_JSON ? OOM_LANG_JSON : doc->kind == DOC_YAML ? OOM_LANG_YAML : OOM_LANG_PYTHON;
    oom_linter *linter = oom_linter_new(s->profile.compiled);
    oom_fix_policy policy = {OOM_FIX_SAFE, fix_allowed, &s->profile.fixable};
    oom_fix_result res;
    memset(&res, 0, sizeof res);
    oom_fix_text(linter, doc->path, doc->text.data, doc->text.len, lang, &policy, &res);
    if (res.outcome == OOM_FIX_CHANGED) {
        const char *a = doc->text.data, *b = res.text;
        size_t na = doc->text.len, nb = res.len, pre = 0, suf = 0;
        while (pre < na && pre < nb && a[pre] == b[pre])
            pre++;
        while (suf < na - pre && suf < nb - pre && a[na - 1 - suf] == b[nb - 1 - suf])
            suf++;
        /* whole characters: the edit's ends must not split a UTF-8 sequence */
        while (pre > 0 && ((unsigned char)a[pre] & 0xC0) == 0x80)
            pre--;
        while (suf > 0 && ((unsigned char)a[na - suf] & 0xC0) == 0x80)
            suf--;
        cJSON *range = cJSON_CreateObject();
        offset_position(s, doc, pre, range, "start");
        offset_position(s, doc, na - suf, range, "end");
        char *middle = oom_xstrndup(b + pre, nb - pre - suf);
        cJSON *edits = cJSON_CreateArray();
        cJSON_AddItemToArray(edits, text_edit(range, middle));
        free(middle);
        cJSON_AddItemToArray(out, action("oomlint: fix all safe fixes", "source.fixAll.oomlint", NULL, false,
                                         workspace_edit(doc->uri, edits)));
    }
    oom_fix_result_free(&res);
    oom_linter_free(linter);
}

void srv_on_code_action(srv_session *s, const cJSON *id, const cJSON *params)
{
    size_t cell;
    const char *uri;
    srv_doc *doc = srv_request_doc(s, id, params, &cell, &uri);
    if (!doc)
        return;
    srv_lint_due(s, srv_now_ms(), true); /* the edits must fit the text as it is now */
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(params, "range");
    uint32_t sl = 0, sc, el = UINT32_MAX, ec;
    if (range && (!srv_position(cJSON_GetObjectItemCaseSensitive(range, "start"), &sl, &sc) ||
                  !srv_position(cJSON_GetObjectItemCaseSensitive(range, "end"), &el, &ec))) {
        srv_respond_error(s, id, RPC_INVALID_PARAMS, "range is malformed");
        return;
    }
    wanted_kinds want = read_only(cJSON_GetObjectItemCaseSensitive(params, "context"));
    cJSON *out = cJSON_CreateArray();
    /* an .ipynb opened as text: its cells' edits are not its JSON's */
    bool editable = doc->kind != DOC_IPYNB_TEXT && s->have_profile && s->profile.compiled;
    for (size_t i = 0; editable && want.quickfix && i < doc->diags.len; i++) {
        const oom_diag *d = &doc->diags.items[i];
        uint32_t span[4];
        srv_diag_span(s, doc, d, span);
        if (strcmp(srv_diag_uri(doc, d), uri) != 0 || span[2] < sl || span[0] > el)
            continue;
        add_fix(s, doc, uri, d, out);
        if (doc->kind == DOC_PYTHON || doc->kind == DOC_NOTEBOOK)
            add_noqa(s, doc, uri, d, out);
    }
    if (editable && want.fix_all && cell == SIZE_MAX)
        add_fix_all(s, doc, out);
    srv_respond(s, id, out);
}
