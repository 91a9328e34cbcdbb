// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: print the host's TSC rate in kHz.
 *
 * Under TCG a guest's RDTSC reads the host's TSC, so this is the guest's
 * rate too.  vm/run.sh passes it as tsc_early_khz= to the debug kernels:
 * without ACPI they have neither HPET nor PM timer to calibrate against, and
 * a PIT calibration, timed by an emulated PIT on a busy host, can fail and
 * leave the guest's clock at jiffies resolution.
 *
 * Built by vm/run.sh: gcc -O2 -o tsc-khz tsc-khz.c
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

int main(void)
{
	const struct timespec nap = { .tv_nsec = 100 * 1000 * 1000 };
	unsigned long long t0, t1, c0, c1;

	t0 = now_ns();
	c0 = __rdtsc();
	nanosleep(&nap, NULL);
	t1 = now_ns();
	c1 = __rdtsc();
	/* cycles per ms: kHz */
	printf("%llu\n", (c1 - c0) * 1000000ULL / (t1 - t0));
	return 0;
}
