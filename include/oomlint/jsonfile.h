/* jsonfile: reading a JSON file that another file names (a DeepSpeed config,
 * a model's config.json). Missing, unreadable or invalid all mean "no facts":
 * the file may be created when the job runs. */
#ifndef OOMLINT_JSONFILE_H
#define OOMLINT_JSONFILE_H

#include <cJSON.h>

/* The parsed document (free with cJSON_Delete), or NULL. */
void *oom_json_read_file(const char *path);

#endif
