/* The warm floor (issue 33): one stat of each path read from stdin (one a
 * line), nothing else. No correct warm run can look at less than one stat
 * of each file that can change; bench/warm.sh times this program on a
 * tree's events.jsonl and metadata.json paths beside the tools' warm runs.
 * Prints how many paths it stat-ed. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int main(void) {
    static char line[8192];
    struct stat st;
    long n = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        if (stat(line, &st) == 0)
            n++;
    }
    printf("%ld\n", n);
    return 0;
}
