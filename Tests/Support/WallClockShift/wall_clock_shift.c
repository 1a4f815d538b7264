// An LD_PRELOAD library for tests: moves the process's wall clock, and nothing else.
//
// clock_gettime(CLOCK_REALTIME / CLOCK_REALTIME_COARSE), gettimeofday and time return the real
// time plus an offset in seconds (a decimal number, negative for the past) read from the file
// named by SURVEYD_TEST_WALL_CLOCK_OFFSET_FILE. The file is looked at (stat) on every call and
// read again when its inode, size or modification time changed, so a test steps the clock by
// writing a new file and renaming it over the old one. CLOCK_MONOTONIC, CLOCK_BOOTTIME and every
// other clock, and every sleep, are left alone (unlike libfaketime's defaults).
//
// Built by the end-to-end tests at run time (WallClockShift.swift in SurveyTesting):
//   cc -shared -fPIC -O2 -o libwallclockshift.so wall_clock_shift.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static clock_gettime_fn real_clock_gettime;
static const char *offset_path;
static int64_t offset_ns;  // read and written with __atomic builtins
static char refreshing;    // a try-lock: one thread reads the file, the others use the old offset
static struct { dev_t dev; ino_t ino; off_t size; struct timespec mtime; int valid; } seen;

__attribute__((constructor)) static void shift_init(void) {
    real_clock_gettime = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    offset_path = getenv("SURVEYD_TEST_WALL_CLOCK_OFFSET_FILE");
}

static void refresh(void) {
    if (!offset_path) return;
    if (__atomic_test_and_set(&refreshing, __ATOMIC_ACQUIRE)) return;
    struct stat st;
    if (stat(offset_path, &st) == 0 &&
        !(seen.valid && seen.dev == st.st_dev && seen.ino == st.st_ino && seen.size == st.st_size &&
          seen.mtime.tv_sec == st.st_mtim.tv_sec && seen.mtime.tv_nsec == st.st_mtim.tv_nsec)) {
        int fd = open(offset_path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            char text[64];
            ssize_t got = read(fd, text, sizeof text - 1);
            close(fd);
            if (got > 0) {
                text[got] = 0;
                char *end = NULL;
                double seconds = strtod(text, &end);
                if (end != text) {
                    __atomic_store_n(&offset_ns, (int64_t)(seconds * 1e9), __ATOMIC_RELEASE);
                    seen.dev = st.st_dev;
                    seen.ino = st.st_ino;
                    seen.size = st.st_size;
                    seen.mtime = st.st_mtim;
                    seen.valid = 1;
                }
            }
        }
    }
    __atomic_clear(&refreshing, __ATOMIC_RELEASE);
}

static void shift(struct timespec *ts) {
    refresh();
    int64_t offset = __atomic_load_n(&offset_ns, __ATOMIC_ACQUIRE);
    int64_t ns = (int64_t)ts->tv_nsec + offset % 1000000000;
    int64_t s = (int64_t)ts->tv_sec + offset / 1000000000;
    while (ns < 0) { ns += 1000000000; s -= 1; }
    while (ns >= 1000000000) { ns -= 1000000000; s += 1; }
    ts->tv_sec = (time_t)s;
    ts->tv_nsec = (long)ns;
}

static int real_now(clockid_t id, struct timespec *ts) {
    if (!real_clock_gettime) real_clock_gettime = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    return real_clock_gettime(id, ts);
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    int result = real_now(id, ts);
    if (result == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) shift(ts);
    return result;
}

// Declared without <sys/time.h>, whose prototype differs between glibc versions.
struct shift_timeval { long tv_sec; long tv_usec; };
int gettimeofday(struct shift_timeval *tv, void *tz) {
    if (tz) memset(tz, 0, 2 * sizeof(int));
    if (!tv) return 0;
    struct timespec ts;
    int result = real_now(CLOCK_REALTIME, &ts);
    if (result != 0) return result;
    shift(&ts);
    tv->tv_sec = (long)ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *out) {
    struct timespec ts;
    if (real_now(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
    shift(&ts);
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}
