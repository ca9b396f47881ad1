/* estimate/flags: options declared by flag-defining calls, as absl's are
 * (`flags.DEFINE_integer("batch_size", 128, "Batch size.")`, read back as
 * `FLAGS.batch_size`). Which calls define a flag, and which of them an
 * integer or a switch, is data (rules/kb/library.json "options"); the
 * calls take the flag's name and then its default, positionally or as
 * name= / default=. A flag is an option of the script like argparse's, so
 * the command's `--batch_size=64` binds to it (arguments.c), and a switch's
 * `--noflag` turns it off; absl's single-dash spelling is not matched and is
 * noted as an option the script does not have. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "oomlint/library.h"

/* The argument at `pos` or the keyword `name`; null when neither is given. */
static TSNode argument(const oom_est_reader *r, TSNode call, uint32_t pos, const char *name)
{
    TSNode k = oom_pymodel_keyword_value(r->m, call, name);
    return ts_node_is_null(k) ? oom_est_positional(call, pos) : k;
}

bool oom_est_flag_definition(const oom_est_reader *r, TSNode call, oom_est_setting *out)
{
    const oom_library *lib = oom_library_get();
    oom_buf q, name;
    oom_buf_init(&q);
    oom_buf_init(&name);
    bool defines = lib && oom_pymodel_qualname(r->m, oom_est_child(call, "function"), &q) &&
                   oom_library_lists(&lib->flag_definers, q.data, q.len);
    bool ok = defines && oom_pymodel_string_value(r->m, argument(r, call, 0, "name"), &name) && name.len > 0 &&
              name.len < sizeof out->name && !strchr(name.data, '-');
    if (ok) {
        memset(out, 0, sizeof *out);
        out->kind = OOM_SETTING_ARGPARSE;
        oom_est_copy(out->name, sizeof out->name, name.data);
        oom_est_printf(out->spelling, sizeof out->spelling, "--%s", name.data);
        out->at = call;
        TSNode dflt = argument(r, call, 1, "default");
        TSNode followed = ts_node_is_null(dflt) ? dflt : oom_pymodel_value_of(r->m, dflt, 0);
        out->value = ts_node_is_null(followed) ? dflt : followed;
        out->int_type = oom_library_lists(&lib->int_flag_definers, q.data, q.len);
        /* a switch takes no value (`--amp`) and `--amp=false` */
        out->flag = oom_library_lists(&lib->bool_flag_definers, q.data, q.len) ? 0 : -1;
        if (out->flag == 0) /* absl turns a switch off with `--no<name>` */
            oom_est_printf(out->off_spelling, sizeof out->off_spelling, "--no%s", name.data);
    }
    oom_buf_free(&q);
    oom_buf_free(&name);
    return ok;
}
