/* Writes the demo's index.html and demo.json (see demo_report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "demo_report.h"

/* Where tools/demo_compare.py puts its section (left as it is without it). */
#define COMPARISON_MARK "<!-- parac-demo:comparison -->"

void demo_data_name(const char *preview, char *out, size_t size)
{
    const char *dot = strrchr(preview, '.');
    const int stem = dot ? (int)(dot - preview) : (int)strlen(preview);
    snprintf(out, size, "data/%.*s.npy", stem, preview);
}

static void put_html(FILE *f, const char *s)
{
    for (; *s; s++) switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

static void put_json(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* Opens DIR/.NAME.XXXXXX for writing; *tmp receives its name. */
static FILE *open_temp(const char *dir, const char *name, char *tmp, size_t size)
{
    snprintf(tmp, size, "%s/.%s.XXXXXX", dir, name);
    int fd = mkstemp(tmp);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
    }
    return f;
}

static int close_and_rename(FILE *f, const char *tmp, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static const char page_style[] =
    "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}\n"
    "section.op{border-top:1px solid #ddd;padding:.8em 0}\n"
    "h2{font-size:1.15em;margin:.2em 0}.summary{color:#555;margin:.2em 0 .6em}\n"
    ".pics{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}\n"
    "figure{margin:0;max-width:100%}figure img{max-width:100%;height:auto;image-rendering:pixelated;"
    "display:block;border:1px solid #ccc}\n"
    ".pics figure{max-width:calc(50% - .5em);overflow-x:auto}\n"
    ".pics figure.table{max-width:100%}table.rows{border-collapse:collapse;font-size:.75em}"
    "table.rows td,table.rows th{padding:.1em .4em;border:1px solid #ccc;text-align:right}\n"
    "figcaption{font-size:85%;color:#555}\n"
    ".facts{font-size:90%;margin-top:.5em}.t{font-variant-numeric:tabular-nums}.err{color:#b00}.ok{color:#070}\n"
    "code{font-size:90%;overflow-wrap:anywhere}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:.3em .6em}th{background:#f3f3f3}td.t{white-space:nowrap}\n"
    "td.t{text-align:right}svg{max-width:100%;height:auto}\n";

static void put_figure(FILE *f, const char *src, const char *caption)
{
    fputs("<figure><img src=\"", f);
    put_html(f, src);
    fputs("\" alt=\"", f);
    put_html(f, caption);
    fputs("\"><figcaption>", f);
    put_html(f, caption);
    fputs("</figcaption></figure>\n", f);
}

static void write_page(FILE *f, const demo_entry *e, int n, const char *device_line, const char *version,
                       const char *date)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>parac demo</title>\n<style>\n%s</style></head><body>\n<h1>parac demo</h1>\n<p>parac ",
            page_style);
    put_html(f, version);
    fputs(" &middot; ", f);
    put_html(f, device_line);
    fprintf(f, " &middot; %s</p>\n", date);
    fprintf(f, "<p>Every operation of parac on an input the demo draws itself. Volumes are shown as "
               "maximum-intensity projections: along z (top left), along x (right) and along y "
               "(below). Time: the median of several runs with the data already on the device; "
               "moving it there and back is shown apart.</p>\n%s\n",
            COMPARISON_MARK);
    for (int i = 0; i < n; i++) {
        fputs("<section class=\"op\" id=\"op-", f);
        put_html(f, e[i].op);
        fputs("\"><h2>", f);
        put_html(f, e[i].op);
        fputs("</h2><p class=\"summary\">", f);
        put_html(f, e[i].summary);
        fputs("</p>\n<div class=\"pics\">\n", f);
        char caption[64];
        for (int k = 0; k < e[i].n_inputs; k++) {
            snprintf(caption, sizeof caption, e[i].n_inputs > 1 ? "input %d" : "input", k + 1);
            put_figure(f, e[i].inputs[k], caption);
        }
        for (int k = 0; k < e[i].n_outputs; k++) {
            snprintf(caption, sizeof caption, e[i].n_outputs > 1 ? "output %d" : "output", k + 1);
            if (!e[i].tables[k][0]) {
                put_figure(f, e[i].outputs[k], caption);
                continue;
            }
            fprintf(f, "<figure class=\"table\">%s<figcaption>%s: the first rows; all in <a href=\"", e[i].tables[k], caption);
            put_html(f, e[i].outputs[k]);
            fputs("\">", f);
            put_html(f, e[i].outputs[k]);
            fputs("</a></figcaption></figure>\n", f);
        }
        fputs("</div>\n<div class=\"facts\">", f);
        if (e[i].error[0]) {
            fputs("<p class=\"err\">", f);
            put_html(f, e[i].error);
            fputs("</p>", f);
        }
        fputs("<code>parac ", f);
        put_html(f, e[i].op);
        for (int k = 0; k < e[i].n_params; k++) {
            fputs(" --", f);
            put_html(f, e[i].param_names[k]);
            fputc(' ', f);
            put_html(f, e[i].param_values[k]);
        }
        fputs("</code><br>", f);
        put_html(f, e[i].method);
        fprintf(f, "<br><span class=\"t\">%.3f ms</span> on %s (transfers %.3f ms)</div></section>\n",
                e[i].median_ms, e[i].device, e[i].transfer_ms);
    }
    fputs("</body></html>\n", f);
}

static void put_files(FILE *f, const char names[][256], int n)
{
    fputc('[', f);
    for (int k = 0; k < n; k++) {
        char data[300];
        demo_data_name(names[k], data, sizeof data);
        const size_t len = strlen(names[k]);
        const int table = len > 4 && strcmp(names[k] + len - 4, ".csv") == 0;
        fputs(k ? ", {" : "{", f);
        fputs(table ? "\"csv\": " : "\"png\": ", f);
        put_json(f, names[k]);
        fputs(", \"npy\": ", f);
        put_json(f, data);
        fputc('}', f);
    }
    fputc(']', f);
}

static void write_manifest(FILE *f, const demo_entry *e, int n, const char *device_line, const char *version,
                           const char *date)
{
    fputs("{\"version\": ", f);
    put_json(f, version);
    fputs(", \"device\": ", f);
    put_json(f, device_line);
    fputs(", \"date\": ", f);
    put_json(f, date);
    fputs(", \"operations\": [\n", f);
    for (int i = 0; i < n; i++) {
        fputs("  {\"op\": ", f);
        put_json(f, e[i].op);
        fputs(", \"params\": {", f);
        for (int k = 0; k < e[i].n_params; k++) {
            if (k) fputs(", ", f);
            put_json(f, e[i].param_names[k]);
            fputs(": ", f);
            put_json(f, e[i].param_values[k]);
        }
        fputs("}, \"method\": ", f);
        put_json(f, e[i].method);
        fputs(", \"device\": ", f);
        put_json(f, e[i].device);
        fprintf(f, ", \"median_ms\": %.6f, \"transfer_ms\": %.6f, \"inputs\": ", e[i].median_ms,
                e[i].transfer_ms);
        put_files(f, e[i].inputs, e[i].n_inputs);
        fputs(", \"outputs\": ", f);
        put_files(f, e[i].outputs, e[i].n_outputs);
        fputs(", \"error\": ", f);
        put_json(f, e[i].error);
        fprintf(f, "}%s\n", i + 1 < n ? "," : "");
    }
    fputs("]}\n", f);
}

int demo_write_report(const char *dir, const demo_entry *e, int n, const char *device_line,
                      const char *version)
{
    time_t now = time(NULL);
    char date[64], tmp[4096];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    FILE *f = open_temp(dir, "demo.json", tmp, sizeof tmp);
    if (!f) return -1;
    write_manifest(f, e, n, device_line, version, date);
    if (close_and_rename(f, tmp, dir, "demo.json") != 0) return -1;
    f = open_temp(dir, "index.html", tmp, sizeof tmp);
    if (!f) return -1;
    write_page(f, e, n, device_line, version, date);
    return close_and_rename(f, tmp, dir, "index.html");
}
