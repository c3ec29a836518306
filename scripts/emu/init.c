/* init.c - the /init of the initramfs that scripts/avx512-emu.sh boots in Bochs.
 *
 * Built with `gcc -static`, so it needs nothing else from the initramfs. It
 * mounts the pseudo filesystems a test binary may look at, puts the console on
 * fds 0-2, runs the command listed in /heliod-emu/argv (NUL-separated) from the
 * directory named in /heliod-emu/cwd, prints its exit status on a marker line
 * the host script parses, and powers the machine off. The kernel panics when
 * init returns, so every path ends in reboot().
 *
 * Lines on the serial console (parsed by avx512-emu.sh):
 *   HELIOD-EMU-START uptime=<s> <cpu flags containing avx512>
 *   ...the command's stdout and stderr...
 *   HELIOD-EMU-EXIT <status>     (128+N if it died of signal N)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define MAX_ARGS 256

/* Reads a whole (small) file into a NUL-terminated heap buffer; NULL on error. */
static char *slurp(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (n == cap) buf = realloc(buf, (cap *= 2) + 1);
        ssize_t r = read(fd, buf + n, cap - n);
        if (r <= 0) break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

static _Noreturn void power_off(int status) {
    printf("HELIOD-EMU-EXIT %d\n", status);
    fflush(stdout);
    /* The console is a serial port: written data sits in the tty buffer until
     * the emulated UART has sent it. Wait for that, or the power-off cuts off
     * the end of the output (and the marker). */
    tcdrain(STDOUT_FILENO);
    sync();
    reboot(RB_POWER_OFF);
    /* Only if the power-off failed: the host script has seen the marker and
     * kills Bochs anyway; do not return (that would panic the kernel). */
    for (;;)
        pause();
}

/* Prints the avx512* words of the first "flags" line of /proc/cpuinfo, so the
 * log shows what the emulated CPU advertises. */
static void print_avx512_flags(void) {
    char *info = slurp("/proc/cpuinfo", NULL);
    char *line = info ? strstr(info, "\nflags") : NULL;
    if (!line) {
        printf(" (no /proc/cpuinfo flags)");
        free(info);
        return;
    }
    char *end = strchr(line + 1, '\n');
    if (end) *end = '\0';
    char *save = NULL;
    for (char *w = strtok_r(strchr(line, ':'), " :", &save); w; w = strtok_r(NULL, " ", &save))
        if (strncmp(w, "avx512", 6) == 0) printf(" %s", w);
    free(info);
}

int main(void) {
    mkdir("/proc", 0755);
    mkdir("/sys", 0755);
    mkdir("/dev", 0755);
    mkdir("/tmp", 01777);
    mount("proc", "/proc", "proc", 0, NULL);
    mount("sysfs", "/sys", "sysfs", 0, NULL);
    mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);

    /* The initramfs has no /dev/console node, so the kernel started us with
     * fds 0-2 closed; take them from devtmpfs. */
    int con = open("/dev/console", O_RDWR | O_NOCTTY);
    if (con >= 0) {
        dup2(con, 0);
        dup2(con, 1);
        dup2(con, 2);
        if (con > 2) close(con);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* Keep late kernel messages out of the command's output. */
    klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 1);

    char *uptime = slurp("/proc/uptime", NULL);
    if (uptime) uptime[strcspn(uptime, " \n")] = '\0';
    printf("HELIOD-EMU-START uptime=%s", uptime ? uptime : "?");
    print_avx512_flags();
    printf("\n");

    size_t len = 0;
    char *args = slurp("/heliod-emu/argv", &len);
    if (!args || len == 0) {
        printf("heliod-emu init: no /heliod-emu/argv\n");
        power_off(125);
    }
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    for (size_t i = 0; i < len && argc < MAX_ARGS; i += strlen(args + i) + 1)
        argv[argc++] = args + i;
    argv[argc] = NULL;

    char *cwd = slurp("/heliod-emu/cwd", NULL);
    if (cwd && *cwd && chdir(cwd) != 0)
        printf("heliod-emu init: chdir %s: %s\n", cwd, strerror(errno));

    char *envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin",
                    "HOME=/tmp",
                    "TMPDIR=/tmp",
                    "TERM=dumb",
                    "LANG=C.UTF-8",
                    NULL};
    pid_t pid = fork();
    if (pid == 0) {
        execve(argv[0], argv, envp);
        fprintf(stderr, "heliod-emu init: exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (pid < 0) {
        printf("heliod-emu init: fork: %s\n", strerror(errno));
        power_off(125);
    }
    /* As PID 1 we also inherit orphans; wait for our child specifically. */
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    int status;
    if (WIFEXITED(st)) {
        status = WEXITSTATUS(st);
    } else {
        status = 128 + WTERMSIG(st);
        printf("heliod-emu init: %s killed by signal %d (%s)\n", argv[0], WTERMSIG(st),
               strsignal(WTERMSIG(st)));
    }
    power_off(status);
}
