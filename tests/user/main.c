// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the user test runner: runs every test (or those named on the
 * command line) each in a child process and prints TAP and a closing line
 * "N passed, N failed, N skipped".  Exit status 0 when nothing failed.
 *
 * A test that has not ended after HIXL_TEST_TIMEOUT seconds (default 600)
 * fails: the runner asks the kernel for its blocked tasks (sysrq "w", into
 * the kernel log), prints what the test wrote so far, kills the test's
 * process group and goes on with the next test, so one hang names itself
 * instead of eating the VM's whole time limit.
 *
 * HIXL_TEST_SHARD=I/N runs only the tests whose position in the table
 * (0-based, counting every test, named or not) is I modulo N: a run split
 * over N VMs, each with its own I.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "tests.h"
#include "util.h"

int ht_failures;

void ht_skip(const char *why)
{
	/* the child's stdout is a pipe to the parent: first line says skip */
	printf("SKIP %s\n", why);
	fflush(stdout);
	_exit(77);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The kernel's blocked (D state) tasks into its log, for the console. */
static void dump_blocked_tasks(void)
{
	int fd = open("/proc/sysrq-trigger", O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, "w", 1) != 1)
		perror("sysrq-trigger");
	close(fd);
}

/*
 * Reap @pid; after a timeout (@timed_out), kill its process group first and
 * give it 30 s to go.  Returns 0 with *status set, or -1 when it would not
 * exit (a task stuck in the kernel: it stays a zombie-to-be).
 */
static int reap(pid_t pid, int timed_out, int *status)
{
	long long end = now_ms() + 30000;

	if (!timed_out)
		return waitpid(pid, status, 0) == pid ? 0 : -1;
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (now_ms() < end) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 0;
		usleep(100000);
	}
	return -1;
}

/*
 * Each test's wall time as a TAP comment after its result line, "# took
 * NAME 12.3 s": what `make check`'s VM stages spend their time on
 * (scripts/test-times.sh sums them per test over the guests' user.tap).
 */
static void print_took(const char *name, long long started)
{
	long long ms = now_ms() - started;

	printf("# took %s %lld.%lld s\n", name, ms / 1000, ms % 1000 / 100);
}

/*
 * Parse HIXL_TEST_SHARD ("I/N", 0 <= I < N): 0 and *@shard, *@nshards, or
 * -1 when it is malformed.  Unset means shard 0 of 1.
 */
static int parse_shard(unsigned int *shard, unsigned int *nshards)
{
	const char *env = getenv("HIXL_TEST_SHARD");
	char tail;

	*shard = 0;
	*nshards = 1;
	if (!env || !*env)
		return 0;
	if (sscanf(env, "%u/%u%c", shard, nshards, &tail) != 2 ||
	    *nshards == 0 || *shard >= *nshards)
		return -1;
	return 0;
}

static int selected(int argc, char **argv, const char *name)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int n = 0, passed = 0, failed = 0, skipped = 0;
	const struct ht_test *const *table, *t;
	const char *env = getenv("HIXL_TEST_TIMEOUT");
	long timeout_s = env ? atol(env) : 600;
	unsigned int shard, nshards, pos = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_shard(&shard, &nshards) < 0) {
		fprintf(stderr, "hixl-test: HIXL_TEST_SHARD must be I/N with 0 <= I < N, not \"%s\"\n",
			getenv("HIXL_TEST_SHARD"));
		return 2;
	}
	/*
	 * Two engines of this VM would pair for the same-host copy (local.c);
	 * the tests are about RDMA over rxe0, so their engines (library and
	 * raw, hixl_raw_transport()) use RDMA.  test_local.c chooses per engine.
	 */
	setenv("HIXL_TRANSPORT", "rdma", 0);
	printf("TAP version 13\n");
	for (table = hixl_test_tables; *table; table++)
	for (t = *table; t->name; t++) {
		char buf[4096] = "", skipwhy[512] = "";
		int pfd[2], status = 0, timed_out = 0;
		ssize_t len, got = 0;
		long long deadline, started;
		pid_t pid;

		unsigned long long policy;

		if (pos++ % nshards != shard)
			continue;
		if (!selected(argc, argv, t->name))
			continue;
		n++;
		/* a test may force staging (hx_stage_by_size()): undone after it */
		policy = read_param("stage_policy");
		if (pipe(pfd) < 0) {
			perror("pipe");
			return 2;
		}
		fflush(stdout);
		started = now_ms();
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			setpgid(0, 0);	/* the runner kills the whole group on a timeout */
			close(pfd[0]);
			dup2(pfd[1], STDOUT_FILENO);
			close(pfd[1]);
			setvbuf(stdout, NULL, _IOLBF, 0);
			t->fn();
			fflush(stdout);
			_exit(ht_failures ? 1 : 0);
		}
		close(pfd[1]);
		deadline = now_ms() + timeout_s * 1000;
		for (;;) {	/* keep draining past a full buffer: never block the child */
			struct pollfd pl = { .fd = pfd[0], .events = POLLIN };
			long long left = deadline - now_ms();
			char chunk[1024];
			int r;

			r = left > 0 ? poll(&pl, 1, left > 60000 ? 60000 : (int)left) : 0;
			if (r < 0 && errno == EINTR)
				continue;
			if (r == 0 && now_ms() >= deadline) {
				timed_out = 1;
				break;
			}
			if (r == 0)
				continue;
			len = read(pfd[0], chunk, sizeof(chunk));
			if (len <= 0)
				break;
			if ((size_t)len > sizeof(buf) - 1 - got)
				len = sizeof(buf) - 1 - got;
			memcpy(buf + got, chunk, len);
			got += len;
		}
		buf[got] = 0;
		close(pfd[0]);
		if (policy != ~0ULL && read_param("stage_policy") != policy)
			write_param("stage_policy", policy);
		if (timed_out)
			dump_blocked_tasks();
		if (reap(pid, timed_out, &status) < 0) {
			if (got)
				fputs(buf, stdout);
			printf("#   timed out after %ld s (HIXL_TEST_TIMEOUT); blocked tasks are in the kernel log; the test's process does not exit\n",
			       timeout_s);
			printf("not ok %d - %s\n", n, t->name);
			failed++;
			continue;
		}

		if (WIFEXITED(status) && WEXITSTATUS(status) == 77 &&
		    sscanf(buf, "SKIP %511[^\n]", skipwhy) == 1) {
			printf("ok %d - %s # SKIP %s\n", n, t->name, skipwhy);
			print_took(t->name, started);
			skipped++;
			continue;
		}
		if (got)
			fputs(buf, stdout);
		if (timed_out)
			printf("#   timed out after %ld s (HIXL_TEST_TIMEOUT); blocked tasks are in the kernel log\n",
			       timeout_s);
		if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("ok %d - %s\n", n, t->name);
			passed++;
		} else {
			if (WIFSIGNALED(status) && !timed_out)
				printf("#   killed by signal %d\n", WTERMSIG(status));
			printf("not ok %d - %s\n", n, t->name);
			failed++;
		}
		print_took(t->name, started);
	}
	printf("1..%d\n", n);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
