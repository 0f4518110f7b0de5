// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "supervisor/log.h"
#include "supervisor/report.h"

char *wd_report_json(const struct wd_report *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *argv;
	char *s;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "schema", WD_REPORT_SCHEMA);
	cJSON_AddStringToObject(o, "backend", r->backend ? r->backend : "");
	cJSON_AddStringToObject(o, "sandbox", r->sandbox ? r->sandbox : "");
	cJSON_AddStringToObject(o, "status", r->status);
	cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
	if (r->signal)
		cJSON_AddNumberToObject(o, "signal", r->signal);
	else
		cJSON_AddNullToObject(o, "signal");
	if (r->start_errno)
		cJSON_AddStringToObject(o, "error", strerror(r->start_errno));
	else if (r->error)
		cJSON_AddStringToObject(o, "error", r->error);
	cJSON_AddNumberToObject(o, "wall_time_s", r->wall_time_s);
	cJSON_AddNumberToObject(o, "denials", (double)r->denials);
	cJSON_AddNumberToObject(o, "lost_records", (double)r->lost_records);
	cJSON_AddNumberToObject(o, "holds", (double)r->holds);
	argv = cJSON_AddArrayToObject(o, "argv");
	for (size_t i = 0; argv && r->argv && r->argv[i]; i++)
		cJSON_AddItemToArray(argv, cJSON_CreateString(r->argv[i]));
	s = cJSON_Print(o);
	cJSON_Delete(o);
	return s;
}

int wd_report_write(const struct wd_report *r, const char *path)
{
	char tmp[4096];
	char *json;
	FILE *f = NULL;
	int err = 0;

	json = wd_report_json(r);
	if (!json)
		return -ENOMEM;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(tmp)) {
		err = -ENAMETOOLONG;
		goto out_free;
	}
	f = fopen(tmp, "we");
	if (!f) {
		err = -errno;
		log_warn("report: cannot write %s", tmp);
		goto out_free;
	}
	if (fprintf(f, "%s\n", json) < 0 || fflush(f) || fsync(fileno(f)))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		log_warnx("report: cannot write %s: %s", path, strerror(-err));
		unlink(tmp);
	}
out_free:
	free(json);
	return err;
}
