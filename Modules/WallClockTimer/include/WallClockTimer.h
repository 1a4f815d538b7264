// WallClockTimer: a timerfd that the kernel cancels when the wall clock is set, and a way to
// stop a thread waiting on it; the timerfd flags are not in Swift's Glibc module.
#ifndef SURVEYD_WALL_CLOCK_TIMER_H
#define SURVEYD_WALL_CLOCK_TIMER_H

/// Opens a CLOCK_REALTIME timerfd armed far in the future with TFD_TIMER_ABSTIME and
/// TFD_TIMER_CANCEL_ON_SET, and an eventfd that stops a wait. Returns 0 and sets both
/// descriptors, or -1 with errno set (where the system has no timerfd: ENOSYS).
int wall_clock_timer_open(int *timer, int *stop);

/// Arms the timer a year from now on CLOCK_REALTIME (wall_clock_timer_wait does it again after
/// each change of the clock, and when the year has passed). Returns 0, or -1 with errno set.
int wall_clock_timer_rearm(int timer);

/// Waits, without a timeout, until the wall clock is set (returns 1, the timer armed again),
/// `stop` is signalled (returns 0) or an error (returns -1 with errno set). Interrupted waits
/// are resumed.
int wall_clock_timer_wait(int timer, int stop);

/// Wakes the thread waiting in wall_clock_timer_wait: it returns 0 from then on.
void wall_clock_timer_signal_stop(int stop);

/// Closes both descriptors.
void wall_clock_timer_close(int timer, int stop);

#endif
