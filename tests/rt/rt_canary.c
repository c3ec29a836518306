/*
 * rt_canary.c - a stand-in for the daemon's audio thread that breaks the
 * real-time rule on purpose: with heliod_rt_thread_flag set it allocates,
 * frees and locks a mutex. test_rt's self-test runs it under rt_hook and
 * requires those calls to be counted, so the daemon test's "zero calls" can
 * only pass because there were none, not because the hook saw nothing.
 */
#include <pthread.h>
#include <stdlib.h>

_Thread_local int heliod_rt_thread_flag;

int main(void) {
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    heliod_rt_thread_flag = 1;
    void *volatile p = malloc(32); /* volatile: the pair must not be optimised away */
    free(p);
    pthread_mutex_lock(&mu);
    pthread_mutex_unlock(&mu);
    heliod_rt_thread_flag = 0;
    p = malloc(32); /* not counted: flag is clear */
    free(p);
    return 0;
}
