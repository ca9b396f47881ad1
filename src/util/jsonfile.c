/* util/jsonfile: a JSON file read with the same checks as any source (size,
 * binary, UTF-8) and parsed with cJSON. */
#include "oomlint/jsonfile.h"

#include "oomlint/source.h"

void *oom_json_read_file(const char *path)
{
    oom_source src;
    char why[128];
    cJSON *root = NULL;
    if (oom_source_read(path, path, &src, why, sizeof why) == OOM_SOURCE_OK)
        root = cJSON_ParseWithLength(src.text, src.len);
    oom_source_free(&src);
    return root;
}
