// See include/WallClockTimer.h.
#include "WallClockTimer.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#if defined(__linux__)
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>

int wall_clock_timer_rearm(int timer) {
    // A year from now (an absolute time on CLOCK_REALTIME): the timer is cancelled when the
    // clock is set long before it expires; when it does expire, it is armed again.
    struct itimerspec spec = {0};
    if (clock_gettime(CLOCK_REALTIME, &spec.it_value) != 0) return -1;
    spec.it_value.tv_sec += 365 * 24 * 3600;
    return timerfd_settime(timer, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL);
}

int wall_clock_timer_open(int *timer, int *stop) {
    int t = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
    if (t < 0) return -1;
    if (wall_clock_timer_rearm(t) != 0) {
        int saved = errno;
        close(t);
        errno = saved;
        return -1;
    }
    int s = eventfd(0, EFD_CLOEXEC);
    if (s < 0) {
        int saved = errno;
        close(t);
        errno = saved;
        return -1;
    }
    *timer = t;
    *stop = s;
    return 0;
}

int wall_clock_timer_wait(int timer, int stop) {
    for (;;) {
        struct pollfd fds[2] = {{.fd = timer, .events = POLLIN}, {.fd = stop, .events = POLLIN}};
        int ready = poll(fds, 2, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (fds[1].revents) return 0;
        if (fds[0].revents) {
            uint64_t expirations;
            ssize_t got = read(timer, &expirations, sizeof expirations);
            if (got < 0 && errno == ECANCELED) {
                // Armed again a year from the new time, for the next change.
                return wall_clock_timer_rearm(timer) == 0 ? 1 : -1;
            }
            if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (got < 0) return -1;
            // Expired (a year without a clock change): arm it again and keep waiting.
            if (wall_clock_timer_rearm(timer) != 0) return -1;
        }
    }
}

void wall_clock_timer_signal_stop(int stop) {
    uint64_t one = 1;
    ssize_t ignored = write(stop, &one, sizeof one);
    (void)ignored;
}

void wall_clock_timer_close(int timer, int stop) {
    close(timer);
    close(stop);
}

#else

int wall_clock_timer_open(int *timer, int *stop) {
    (void)timer;
    (void)stop;
    errno = ENOSYS;
    return -1;
}
int wall_clock_timer_rearm(int timer) {
    (void)timer;
    errno = ENOSYS;
    return -1;
}
int wall_clock_timer_wait(int timer, int stop) {
    (void)timer;
    (void)stop;
    errno = ENOSYS;
    return -1;
}
void wall_clock_timer_signal_stop(int stop) { (void)stop; }
void wall_clock_timer_close(int timer, int stop) {
    (void)timer;
    (void)stop;
}

#endif
