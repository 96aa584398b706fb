/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sensors(1) command, started once per poll as a shell script or a
 * monitoring agent's exec plugin would: every poll pays exec, dynamic
 * linking, sensors_init() (the config parsed, sysfs scanned) and then the
 * values it prints. Its output goes to /dev/null.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

static int cmd_init(struct variant *v)
{
	const char *path = getenv("PATH");
	char file[4096];

	/* Say "not installed" up front rather than fail every poll. */
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");

		snprintf(file, sizeof(file), "%.*s/sensors", (int)len, p);
		if (access(file, X_OK) == 0)
			return 0;
		p += len + (p[len] == ':');
	}
	variant_error(v, "sensors not found in PATH (Debian: lm-sensors)");
	return -ENOENT;
}

static int cmd_poll(struct variant *v)
{
	char *argv[] = { "sensors", NULL, NULL, NULL };
	posix_spawn_file_actions_t fa;
	int r, status;
	pid_t pid;

	if (v->opts->config) {
		argv[1] = "-c";
		argv[2] = (char *)v->opts->config;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	r = posix_spawnp(&pid, "sensors", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r) {
		variant_error(v, "sensors: %s", strerror(r));
		return -r;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			r = -errno;
			variant_error(v, "waitpid: %s", strerror(-r));
			return r;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		variant_error(v, "sensors %s %d", WIFEXITED(status) ? "exited with status" : "killed by signal",
			      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -EIO;
	}
	return 0;
}

static int cmd_begin(struct variant *v)
{
	return cmd_poll(v);
}

/* The children's CPU (counted once each is reaped) and ours, which is
 * the spawning and reaping. */
static int64_t cmd_cpu(struct variant *v)
{
	return cpu_self_ns() + cpu_children_ns();
}

const struct variant_ops variant_sensors_cmd = {
	.name = "sensors-cmd",
	.what = "posix_spawnp(\"sensors\") and waitpid() per poll, output to /dev/null",
	.external = true,
	/* It reads what it prints, not every subfeature. */
	.values_unknown = true,
	.init = cmd_init,
	.begin = cmd_begin,
	.poll = cmd_poll,
	.cpu_ns = cmd_cpu,
};
