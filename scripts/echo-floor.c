/* The floor under a referee's round trip (docs/BENCHMARKS.md, "The answer on the table's own
 * thread"): a 600-byte line echoed by `cat`, timed per round trip (median of 31 batches of 400),
 * waiting for the echo in one of three ways, with `cat` optionally moved into cgroups first.
 *
 *   gcc -O2 -o /tmp/echo-floor scripts/echo-floor.c
 *   taskset -c 0 /tmp/echo-floor MODE [CGROUP_DIR...]
 *
 * MODE 0: blocking read (the roundtrip bench's echo); 1: ppoll (5 ms timeout) then read (the
 * runtime's way, without the runtime); 2: read at once, then sched_yield and read, then ppoll
 * (the referee's way on a table's own thread, referee/src/direct.rs). A CGROUP_DIR such as
 * /sys/fs/cgroup/cpu/x/y (v1) takes `cat` (as a bot's cgroup takes the bot).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODE [CGROUP_DIR...]\n", argv[0]);
        return 2;
    }
    int mode = atoi(argv[1]);
    int in[2], out[2], go[2];
    if (pipe(in) || pipe(out) || pipe(go)) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        if (read(go[0], &c, 1) != 1) _exit(1);
        dup2(in[0], 0);
        dup2(out[1], 1);
        execlp("cat", "cat", (char *)NULL);
        _exit(1);
    }
    for (int i = 2; i < argc; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/cgroup.procs", argv[i]);
        FILE *f = fopen(path, "w");
        if (!f || fprintf(f, "%d\n", pid) < 0 || fclose(f)) {
            perror(path);
            kill(pid, SIGKILL);
            return 1;
        }
    }
    if (write(go[1], "x", 1) != 1) return 1;
    close(in[0]);
    close(out[1]);
    if (mode != 0) fcntl(out[0], F_SETFL, O_NONBLOCK);
    char msg[600], buf[4096];
    memset(msg, 'x', sizeof msg - 1);
    msg[sizeof msg - 1] = '\n';
    struct timespec limit = {0, 5000000};
    double batch[31];
    for (int b = 0; b < 32; b++) {
        double t0 = now_us();
        for (int k = 0; k < 400; k++) {
            if (write(in[1], msg, sizeof msg) != (ssize_t)sizeof msg) return 1;
            size_t got = 0;
            int tried = 0;
            while (got < sizeof msg) {
                if (mode == 1 || (mode == 2 && tried >= 2)) {
                    struct pollfd p = {out[0], POLLIN, 0};
                    ppoll(&p, 1, &limit, NULL);
                } else if (mode == 2 && tried == 1) {
                    sched_yield();
                }
                tried++;
                ssize_t n = read(out[0], buf, sizeof buf);
                if (n > 0) got += (size_t)n;
            }
        }
        if (b > 0) batch[b - 1] = (now_us() - t0) / 400;
    }
    qsort(batch, 31, sizeof batch[0], cmp);
    printf("mode %d: median %.2f us per round trip\n", mode, batch[15]);
    kill(pid, SIGKILL);
    return 0;
}
