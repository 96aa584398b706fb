/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsightd's motion guard follows the disks as they come and go: with
 * disks = auto and no rotational disk the ams sensor is left idle; a
 * rotational disk plugged in (its uevent sent by the testbed to the
 * daemon's udev monitor) starts the sampling, a solid-state one does not,
 * and once the rotational one is unplugged the sensor is idle again. The
 * daemon runs as a child in the case's testbed; what it does is read from
 * its log, line by line, never from how long it took.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testbed.h"

#define HBA "/devices/pci0000:00/0000:00:1f.2"

static char dir[] = "/tmp/hwsight-hotplug-XXXXXX";
static char log_path[4096];

/* How many lines of the daemon's log contain @text. */
static int lines_with(const char *text)
{
	FILE *f = fopen(log_path, "re");
	char line[2048];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, text) != NULL;
	fclose(f);
	return n;
}

/* Wait until @n lines contain @text (20 s at most, a loaded machine). */
static void wait_lines(const char *text, int n)
{
	for (int i = 0; i < 400 && lines_with(text) < n; i++)
		usleep(50000);
	if (lines_with(text) < n) {
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "sed 's/^/# /' %s >&2", log_path);
		(void)!system(cmd);
		FAIL("the log has %d line(s) with \"%s\", not %d", lines_with(text), text, n);
	}
}

static pid_t start_daemon(void)
{
	const char *daemon = getenv("HWSIGHTD");
	char conf[4096];
	FILE *f;
	pid_t pid;

	if (!daemon)
		FAIL("HWSIGHTD must name hwsightd; run through ctest");
	snprintf(conf, sizeof(conf), "%s/hwsightd.conf", dir);
	snprintf(log_path, sizeof(log_path), "%s/daemon.log", dir);
	f = fopen(conf, "we");
	ASSERT_NOT_NULL(f);
	fprintf(f, "[daemon]\nlisten = off\nstate_directory = %s/state\nlog_target = stderr\nlog_level = debug\n"
		"[motion]\nenabled = yes\ninterval = 20ms\n", dir);
	fclose(f);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(127);
		execl(daemon, "hwsightd", "-f", "-c", conf, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* A SATA disk NAME on port @port: rotational or not. */
static void add_disk(UMockdevTestbed *tb, int port, const char *name, bool rotational)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "P: " HBA "/ata%d/host%d/target%d:0:0/%d:0:0:0\n"
		 "E: SUBSYSTEM=scsi\nE: DEVTYPE=scsi_device\nA: unload_heads=0\\n\n\n"
		 "P: " HBA "/ata%d/host%d/target%d:0:0/%d:0:0:0/block/%s\n"
		 "E: SUBSYSTEM=block\nE: DEVTYPE=disk\nE: DEVNAME=/dev/%s\nL: device=../..\n"
		 "A: removable=0\\n\nA: queue/rotational=%d\\n\n",
		 port + 1, port, port, port, port + 1, port, port, port, name, name, rotational);
	add(tb, buf);
}

static void uevent(UMockdevTestbed *tb, int port, const char *name, const char *action)
{
	char path[512];

	snprintf(path, sizeof(path), "/sys" HBA "/ata%d/host%d/target%d:0:0/%d:0:0:0/block/%s",
		 port + 1, port, port, port, name);
	umockdev_testbed_uevent(tb, path, action);
}

TEST_TIMEOUT(sampling_follows_the_rotational_disks, 90)
{
	UMockdevTestbed *tb = testbed();
	const char *beds = getenv("TESTBEDS");
	char ams[4096];
	GError *error = NULL;
	int status;
	pid_t pid;

	ASSERT_NOT_NULL(mkdtemp(dir));
	snprintf(ams, sizeof(ams), "%s/ams.umockdev", beds ? beds : ".");
	if (!umockdev_testbed_add_from_file(tb, ams, &error))
		FAIL("%s: %s", ams, error->message);
	pid = start_daemon();
	wait_lines("motion sensor idle: no rotational disk", 1);
	wait_lines("hotplug: listening to", 1);

	/* A solid-state disk: nothing changes. (Adding a device sends its
	 * "add" already; one more is harmless.) */
	add_disk(tb, 1, "sdb", false);
	uevent(tb, 1, "sdb", "add");
	wait_lines("uevent: add block sdb", 1);
	/* A rotational one: sampled from now on, to protect it. */
	add_disk(tb, 0, "sda", true);
	uevent(tb, 0, "sda", "add");
	wait_lines("watching the motion sensor every 20 ms to protect sda", 1);
	ASSERT_EQ(lines_with("watching the motion sensor"), 1);
	ASSERT_EQ(lines_with("motion sensor idle"), 1);

	/* Unplugged: idle again. umockdev sends a uevent only for a device
	 * it still has, so sdb's stands in for sda's "remove": any disk's
	 * uevent has the disks looked for again. */
	umockdev_testbed_remove_device(tb, "/sys" HBA "/ata1/host0/target0:0:0/0:0:0:0/block/sda");
	uevent(tb, 1, "sdb", "change");
	wait_lines("motion sensor idle: no rotational disk", 2);
	ASSERT_EQ(lines_with("watching the motion sensor"), 1);

	ASSERT_EQ(kill(pid, SIGTERM), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	g_object_unref(tb);
	snprintf(ams, sizeof(ams), "rm -rf '%s'", dir);
	ASSERT_EQ(system(ams), 0);
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
