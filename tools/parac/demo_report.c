/* Writes the demo's index.html: inputs, outputs and timings side by side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "demo_report.h"

static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

int demo_write_report(const char *dir, const demo_entry *e, int n, const char *device_line,
                      const char *version)
{
    char path[4096], tmp[4096];
    snprintf(path, sizeof path, "%s/index.html", dir);
    snprintf(tmp, sizeof tmp, "%s/.index.html.XXXXXX", dir);
    int fd = mkstemp(tmp);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return -1;
    }
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<title>parac demo</title>\n<style>\n"
            "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\n"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.5em;vertical-align:top}\n"
            "th{background:#f3f3f3}img{max-width:320px;image-rendering:pixelated;display:block}\n"
            ".t{font-variant-numeric:tabular-nums;text-align:right}.err{color:#b00}\n"
            "code{font-size:90%%}</style></head><body>\n"
            "<h1>parac demo</h1>\n<p>parac %s &middot; ",
            version);
    put_escaped(f, device_line);
    fprintf(f, " &middot; %s</p>\n", date);
    fprintf(f, "<p>Every operation ran on synthetic inputs. Time: median of several runs with "
               "the data already on the device (transfers shown apart).</p>\n<table>\n"
               "<tr><th>operation</th><th>inputs</th><th>outputs</th><th>method and device</th>"
               "<th>time (ms)</th><th>transfers (ms)</th></tr>\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "<tr><td><b>");
        put_escaped(f, e[i].op);
        fprintf(f, "</b><br><code>");
        put_escaped(f, e[i].params);
        fprintf(f, "</code></td><td>");
        for (int k = 0; k < e[i].n_inputs; k++) {
            fprintf(f, "<img src=\"");
            put_escaped(f, e[i].inputs[k]);
            fprintf(f, "\" alt=\"input %d\">", k);
        }
        fprintf(f, "</td><td>");
        if (e[i].error[0]) {
            fprintf(f, "<span class=\"err\">");
            put_escaped(f, e[i].error);
            fprintf(f, "</span>");
        }
        for (int k = 0; k < e[i].n_outputs; k++) {
            fprintf(f, "<img src=\"");
            put_escaped(f, e[i].outputs[k]);
            fprintf(f, "\" alt=\"output %d\">", k);
        }
        fprintf(f, "</td><td>");
        put_escaped(f, e[i].method);
        fprintf(f, "</td><td class=\"t\">%.3f</td><td class=\"t\">%.3f</td></tr>\n",
                e[i].median_ms, e[i].transfer_ms);
    }
    fprintf(f, "</table>\n</body></html>\n");
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}
