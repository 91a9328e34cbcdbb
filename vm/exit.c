/*
 * qemu-exit N: leave the cqpool test VM with guest status N.
 *
 * Writes N to QEMU's isa-debug-exit port (iobase 0xf4), so that QEMU exits
 * with status (N << 1) | 1.  N is clamped to 0..127 so that the QEMU status
 * still fits in 8 bits (vm/run.sh decodes it as (status - 1) / 2).
 *
 * Before that it drains the serial ttys (console, stdout/stderr and the
 * results port /dev/ttyS1): output written by user space through the tty
 * layer is sent to the UART by interrupt, and would otherwise be lost when
 * QEMU exits.
 *
 * If the port is not available, it falls back to reboot(RB_AUTOBOOT): with
 * QEMU's -no-reboot, QEMU then exits with status 0 ("no status"); vm/run.sh
 * then takes the status from the "cqpool-vm: exit status N" console line.
 *
 * Built statically by vm/initramfs.sh: gcc -static -O2 -o qemu-exit exit.c
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>
#include <sys/reboot.h>
#include <termios.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT 0xf4

static void on_alarm(int sig)
{
	(void)sig; /* just interrupt a stuck tcdrain() */
}

static void drain_fd(int fd)
{
	if (isatty(fd))
		tcdrain(fd);
}

static void drain_path(const char *path)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK);

	if (fd >= 0) {
		drain_fd(fd);
		close(fd);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	long n = 0;

	if (argc > 1) {
		char *end;

		n = strtol(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0')
			n = 127;
	}
	if (n < 0 || n > 127)
		n = 127;

	/* Drain the serial output, at most 5 s. */
	sigaction(SIGALRM, &sa, NULL);
	alarm(5);
	drain_fd(1);
	drain_fd(2);
	drain_path("/dev/console");
	drain_path("/dev/ttyS0");
	drain_path("/dev/ttyS1");
	alarm(0);
	sync();

	if (ioperm(DEBUG_EXIT_PORT, 4, 1) == 0) {
		outb((unsigned char)n, DEBUG_EXIT_PORT);
		/* Still here: no isa-debug-exit device. */
		fprintf(stderr, "qemu-exit: no isa-debug-exit device at 0x%x\n",
			DEBUG_EXIT_PORT);
	} else {
		perror("qemu-exit: ioperm");
	}

	fprintf(stderr, "qemu-exit: falling back to reboot (QEMU exits 0; status %ld is on the console)\n", n);
	sync();
	reboot(RB_AUTOBOOT);
	perror("qemu-exit: reboot");
	return 1;
}
