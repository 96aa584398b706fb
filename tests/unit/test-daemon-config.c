/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsightd.conf as the daemon reads it (daemon/config.c): the defaults,
 * every kind of value, and for each mistake the FILE:LINE and reason a
 * user is shown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <syslog.h>

#include "config.h"
#include "task.h"

static char path[] = "/tmp/hwsightd-conf-XXXXXX";

static int load(const char *text, struct hwsd_config **ret, char **ret_error)
{
	int fd = mkstemp(path);
	FILE *f;
	int r;

	if (fd < 0)
		FAIL("mkstemp: %s", strerror(errno));
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	*ret_error = NULL;
	r = hwsd_config_load(path, ret, ret_error);
	unlink(path);
	strcpy(path + strlen(path) - 6, "XXXXXX");
	return r;
}

/* The reason after "FILE:", e.g. "3: poll_interval: ..." */
static void expect_error(const char *text, const char *want)
{
	struct hwsd_config *c = NULL;
	char *error;
	int r = load(text, &c, &error);

	ASSERT_EQ(r, -EINVAL);
	ASSERT_NULL(c);
	ASSERT_NOT_NULL(error);
	ASSERT_EQ(strncmp(error, "/tmp/hwsightd-conf-", 19), 0);
	ASSERT_STR_EQ(strchr(error, ':') + 1, want);
	free(error);
}

TEST(defaults_without_a_file)
{
	struct hwsd_config *c = NULL;

	ASSERT_EQ(hwsd_config_load(NULL, &c, NULL), 0);
	ASSERT_EQ(c->poll_ms, 2000);
	ASSERT_EQ(c->reader, HWS_READER_PREAD);
	ASSERT_EQ(c->n_chips, 0);
	ASSERT_EQ(c->n_cameras, 0);
	ASSERT_FALSE(c->motion.enabled);
	ASSERT_EQ(c->motion.park_ms, 5000);
	ASSERT_TRUE(c->motion.auto_disks);
	ASSERT_EQ(c->motion.n_disks, 0);
	ASSERT_FALSE(c->dry_run);
	ASSERT_EQ(c->history_flush_s, 300);
	ASSERT_NULL(c->path);
	ASSERT_STR_EQ(c->listen, "127.0.0.1:9787");
	hwsd_config_free(c);
}

TEST(missing_file)
{
	struct hwsd_config *c = NULL;
	char *error = NULL;

	ASSERT_EQ(hwsd_config_load("/nonexistent/hwsightd.conf", &c, &error), -ENOENT);
	ASSERT_NULL(error);
}

TEST(every_key)
{
	struct hwsd_config *c = NULL;
	char *error;

	ASSERT_EQ(load("; a comment\n"
		       "[daemon]\n"
		       "poll_interval = 1.5s\n"
		       "reader = fast\n"
		       "sensors_config = /etc/my-sensors.conf\n"
		       "state_directory = /srv/hwsight\n"
		       "exec = logger \"$HWSIGHT_EVENT\"\n"
		       "log_target = journal\n"
		       "log_level = debug\n"
		       "listen = [::1]:9000\n"
		       "dry_run = yes\n"
		       "[chip w83793-*]\n"
		       "poll_interval = 500ms\n"
		       "chip_alarms = no\n"
		       "temp1.max = 75.5\n"
		       "CPU Fan.min = 600\n"
		       "hysteresis = 3\n"
		       "[camera front]\n"
		       "device = /dev/video0\n"
		       "size = 640x480\n"
		       "fps = 12.5\n"
		       "snapshot_interval = 5min\n"
		       "snapshot_on_alarm = off\n"
		       "format = png\n"
		       "quality = 90\n"
		       "stream_chroma = source\n"
		       "skip_frames = 0\n"
		       "keep = 0\n"
		       "[motion]\n"
		       "enabled = true\n"
		       "sensitivity = 20\n"
		       "interval = 50ms\n"
		       "disks = sda, sdb\n"
		       "park_time = 30s\n"
		       "[history]\n"
		       "flush_interval = 10min\n", &c, &error), 0);
	ASSERT_EQ(c->poll_ms, 1500);
	ASSERT_EQ(c->reader, HWS_READER_FAST);
	ASSERT_STR_EQ(c->sensors_config, "/etc/my-sensors.conf");
	ASSERT_STR_EQ(c->state_dir, "/srv/hwsight");
	ASSERT_STR_EQ(c->exec, "logger \"$HWSIGHT_EVENT\"");
	ASSERT_EQ(c->log_level, LOG_DEBUG);
	ASSERT_STR_EQ(c->listen, "[::1]:9000");
	ASSERT_TRUE(c->dry_run);
	ASSERT_EQ(c->n_chips, 1);
	ASSERT_STR_EQ(c->chips[0].pattern, "w83793-*");
	ASSERT_EQ(c->chips[0].poll_ms, 500);
	ASSERT_FALSE(c->chips[0].chip_alarms);
	ASSERT_FALSE(c->chips[0].hysteresis_percent);
	ASSERT_EQ(c->chips[0].n_thresholds, 2);
	ASSERT_STR_EQ(c->chips[0].thresholds[0].feature, "temp1");
	ASSERT_TRUE(c->chips[0].thresholds[0].is_max);
	ASSERT_TRUE(c->chips[0].thresholds[0].limit == 75.5);
	ASSERT_STR_EQ(c->chips[0].thresholds[1].feature, "CPU Fan");
	ASSERT_FALSE(c->chips[0].thresholds[1].is_max);
	ASSERT_EQ(c->chips[0].thresholds[1].line, 16);
	ASSERT_EQ(c->n_cameras, 1);
	ASSERT_STR_EQ(c->cameras[0].name, "front");
	ASSERT_EQ(c->cameras[0].width, 640);
	ASSERT_EQ(c->cameras[0].interval.num, 2);
	ASSERT_EQ(c->cameras[0].interval.den, 25);
	ASSERT_EQ(c->cameras[0].snapshot_ms, 300000);
	ASSERT_FALSE(c->cameras[0].on_alarm);
	ASSERT_TRUE(c->cameras[0].on_motion);
	ASSERT_EQ(c->cameras[0].type, HWS_IMAGE_PNG);
	ASSERT_EQ(c->cameras[0].quality, 90);
	ASSERT_EQ(c->cameras[0].stream_chroma, HWS_IMAGE_CHROMA_SOURCE);
	ASSERT_EQ(c->cameras[0].keep, 0);
	ASSERT_TRUE(c->motion.enabled);
	ASSERT_FALSE(c->motion.auto_disks);
	ASSERT_EQ(c->motion.n_disks, 2);
	ASSERT_STR_EQ(c->motion.disks[1], "sdb");
	ASSERT_EQ(c->motion.park_ms, 30000);
	ASSERT_EQ(c->history_flush_s, 600);
	hwsd_config_free(c);
}

/* The live stream is 4:2:0 unless a camera says otherwise; the snapshots
 * have no such key (they keep the camera's subsampling). */
TEST(camera_stream_chroma)
{
	static const struct { const char *text; enum hws_image_chroma chroma; } cases[] = {
		{ "[camera a]\ndevice = /dev/video0\n", HWS_IMAGE_CHROMA_420 },
		{ "[camera a]\ndevice = /dev/video0\nstream_chroma = source\n", HWS_IMAGE_CHROMA_SOURCE },
		{ "[camera a]\ndevice = /dev/video0\nstream_chroma = source\nstream_chroma = 420\n",
		  HWS_IMAGE_CHROMA_420 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hwsd_config *c = NULL;
		char *error = NULL;

		ASSERT_EQ(load(cases[i].text, &c, &error), 0);
		ASSERT_EQ(c->n_cameras, 1);
		ASSERT_EQ(c->cameras[0].stream_chroma, cases[i].chroma);
		hwsd_config_free(c);
	}
}

/* flush_interval = 0 writes at each poll, as before bursts. */
TEST(history_flush_every_poll)
{
	struct hwsd_config *c = NULL;
	char *error = NULL;

	ASSERT_EQ(load("[history]\nflush_interval = 0\n", &c, &error), 0);
	ASSERT_EQ(c->history_flush_s, 0);
	hwsd_config_free(c);
}

/* disks = auto (also the default), none or empty (no disks), and the last
 * disks= of the section is the one that counts. */
TEST(disks_auto_and_none)
{
	static const struct { const char *text; bool auto_disks; size_t n; } cases[] = {
		{ "[motion]\nenabled = yes\n", true, 0 },
		{ "[motion]\ndisks = auto\n", true, 0 },
		{ "[motion]\ndisks = none\n", false, 0 },
		{ "[motion]\ndisks =\n", false, 0 },
		{ "[motion]\ndisks = sda\ndisks = auto\n", true, 0 },
		{ "[motion]\ndisks = auto\ndisks = sdb sdc\n", false, 2 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hwsd_config *c = NULL;
		char *error = NULL;

		ASSERT_EQ(load(cases[i].text, &c, &error), 0);
		ASSERT_EQ(c->motion.auto_disks, cases[i].auto_disks);
		ASSERT_EQ(c->motion.n_disks, cases[i].n);
		hwsd_config_free(c);
	}
}

TEST(listen_off)
{
	struct hwsd_config *c = NULL;
	char *error;

	ASSERT_EQ(load("[daemon]\nlisten = off\n", &c, &error), 0);
	ASSERT_NULL(c->listen);
	hwsd_config_free(c);
}

TEST(http_section)
{
	struct hwsd_config *c = NULL;
	char *error;

	ASSERT_EQ(load("[daemon]\nlisten = 0.0.0.0:9787\n[camera a]\ndevice = /dev/video0\n[http]\n"
		       "tls_cert_file = /etc/hwsight/tls.crt\ntls_key_file = /etc/hwsight/tls.key\n"
		       "basic_auth_users = /etc/hwsight/users\n", &c, &error), 0);
	ASSERT_STR_EQ(c->http.tls_cert_file, "/etc/hwsight/tls.crt");
	ASSERT_EQ(c->http.tls_cert_line, 6);
	ASSERT_STR_EQ(c->http.tls_key_file, "/etc/hwsight/tls.key");
	ASSERT_EQ(c->http.tls_key_line, 7);
	ASSERT_STR_EQ(c->http.basic_auth_users, "/etc/hwsight/users");
	ASSERT_EQ(c->http.basic_auth_users_line, 8);
	ASSERT_FALSE(c->http.cameras_without_auth);
	ASSERT_FALSE(hwsd_config_exposed_cameras(c, c->listen));
	hwsd_config_free(c);

	/* Said so: cameras to whoever asks. */
	ASSERT_EQ(load("[daemon]\nlisten = [::]:9787\n[camera a]\ndevice = /dev/video0\n[http]\n"
		       "cameras_without_auth = yes\n", &c, &error), 0);
	ASSERT_TRUE(c->http.cameras_without_auth);
	hwsd_config_free(c);

	/* No camera, nothing to hide: a bare fleet scrape stays possible. */
	ASSERT_EQ(load("[daemon]\nlisten = 0.0.0.0:9787\n", &c, &error), 0);
	ASSERT_FALSE(hwsd_config_exposed_cameras(c, c->listen));
	hwsd_config_free(c);

	/* --listen is checked with the same function. */
	ASSERT_EQ(load("[camera a]\ndevice = /dev/video0\n", &c, &error), 0);
	ASSERT_FALSE(hwsd_config_exposed_cameras(c, c->listen));
	ASSERT_FALSE(hwsd_config_exposed_cameras(c, "[::1]:9787"));
	ASSERT_FALSE(hwsd_config_exposed_cameras(c, "off"));
	ASSERT_TRUE(hwsd_config_exposed_cameras(c, "192.168.1.5:9787"));
	hwsd_config_free(c);
}

TEST(loopback_addresses)
{
	static const struct { const char *listen; int r; } cases[] = {
		{ "127.0.0.1:9787", 1 }, { "127.1.2.3:0", 1 }, { "[::1]:9787", 1 },
		{ "[::ffff:127.0.0.1]:9787", 1 }, { "0.0.0.0:9787", 0 }, { "[::]:9787", 0 },
		{ "192.168.1.5:9787", 0 }, { "[fe80::1]:9787", 0 }, { "128.0.0.1:9787", 0 },
		{ "localhost:9787", -EINVAL }, { "[::1:9787", -EINVAL }, { "9787", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ASSERT_EQ(hwsd_listen_is_loopback(cases[i].listen), cases[i].r);
}

TEST(a_section_twice_is_one_section)
{
	struct hwsd_config *c = NULL;
	char *error;

	ASSERT_EQ(load("[chip *]\ntemp1.max = 1\n[camera a]\ndevice = /dev/video1\n"
		       "[chip *]\ntemp2.max = 2\n", &c, &error), 0);
	ASSERT_EQ(c->n_chips, 1);
	ASSERT_EQ(c->chips[0].n_thresholds, 2);
	hwsd_config_free(c);
}

TEST(durations)
{
	static const struct { const char *text; int r; unsigned ms; } cases[] = {
		{ "2", 0, 2000 }, { "2s", 0, 2000 }, { "250ms", 0, 250 }, { "1.5 s", 0, 1500 },
		{ "5min", 0, 300000 }, { "1h", 0, 3600000 }, { "0", 0, 0 },
		{ "", -EINVAL, 0 }, { "s", -EINVAL, 0 }, { "-1s", -EINVAL, 0 },
		{ "2 fortnights", -EINVAL, 0 }, { "nan", -EINVAL, 0 }, { "1e30", -ERANGE, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned ms = 12345;

		ASSERT_EQ(hwsd_parse_duration(cases[i].text, &ms), cases[i].r);
		ASSERT_EQ(ms, cases[i].r ? 12345 : cases[i].ms);
	}
}

TEST(mistakes_are_refused_with_their_line)
{
	expect_error("[daemon]\npoll_interval = 2x\n",
		     "2: poll_interval: \"2x\" is not a duration (500ms, 2s, 5min, 1h)");
	expect_error("[daemon]\npoll_interval = 50ms\n",
		     "2: poll_interval: 50ms is out of range (100 ms to 86400000 ms)");
	expect_error("[daemon]\nreader = quick\n",
		     "2: reader: \"quick\" is not fast, pread or libsensors");
	expect_error("[daemon]\nlog_level = loud\n",
		     "2: log_level: \"loud\" is not debug, info, notice, warning or err");
	expect_error("[daemon]\nstate_directory = var/lib\n",
		     "2: state_directory: \"var/lib\" is not an absolute path");
	expect_error("[daemon]\nexec =\n", "2: exec: empty value");
	expect_error("[daemon]\nlisten = localhost\n", "2: listen: \"localhost\" is not ADDRESS:PORT or off");
	expect_error("[daemon]\ncolour = blue\n", "2: unknown key \"colour\" in [daemon]");
	expect_error("poll_interval = 1s\n",
		     "1: \"poll_interval\" is outside a section ([daemon], [chip PATTERN], [camera NAME], [motion], [history], [fan NAME], [http])");
	expect_error("[deamon]\npoll_interval = 1s\n", "2: unknown section [deamon]");
	expect_error("[daemon]\nthis line has no equals sign\n",
		     "2: not a [section] or a key = value line");
	expect_error("[chip w83793-i2c-x-zz]\ntemp1.max = 1\n",
		     "2: [chip w83793-i2c-x-zz]: not a chip name pattern (\"w83793-*\", \"applesmc-isa-0300\")");
	expect_error("[chip *]\ntemp1.maximum = 1\n",
		     "2: unknown key \"temp1.maximum\" in [chip *] (thresholds are FEATURE.min and FEATURE.max)");
	expect_error("[chip *]\ntemp1.max = hot\n", "2: temp1.max: \"hot\" is not a number");
	expect_error("[chip *]\nhysteresis = five\n", "2: hysteresis: \"five\" is not a number or a percentage");
	expect_error("[chip *]\nchip_alarms = maybe\n",
		     "2: chip_alarms: \"maybe\" is not a boolean (yes or no)");
	expect_error("[camera ../etc]\ndevice = /dev/video0\n",
		     "2: [camera ../etc]: a camera name is letters, digits, '-' and '_'");
	expect_error("[camera a]\ndevice = video0\n",
		     "2: device: \"video0\" is not a device path (/dev/video0)");
	expect_error("[camera a]\ndevice = /dev/video0\nsize = 640*480\n",
		     "3: size: \"640*480\" is not WIDTHxHEIGHT");
	expect_error("[camera a]\ndevice = /dev/video0\nfps = 40\n",
		     "3: fps: 40 fps is not a whole number of 1/300 s ticks; 37.5 or 42.8571 fps are");
	/* Found by fuzz/fuzz-config.c: it offered "300 or inf fps". */
	expect_error("[camera a]\ndevice = /dev/video0\nfps = 50502\n",
		     "3: fps: 50502 fps is faster than one 1/300 s tick; at most 300 fps");
	expect_error("[camera a]\ndevice = /dev/video0\nformat = gif\n",
		     "3: format: \"gif\" is not jpg, png or ppm");
	expect_error("[camera a]\ndevice = /dev/video0\nquality = 0\n",
		     "3: quality: \"0\" is not 1 to 100");
	expect_error("[camera a]\ndevice = /dev/video0\nstream_chroma = 422\n",
		     "3: stream_chroma: \"422\" is not 420 or source");
	expect_error("[camera a]\nsize = 640x480\n", "2: [camera a]: no device");
	expect_error("[motion]\ndisks = sda ../../etc/passwd\n",
		     "2: disks: \"../../etc/passwd\" is not a disk name (sda, nvme0n1), auto or none");
	expect_error("[motion]\ndisks = auto sda\n", "2: disks: \"auto\" stands alone, without disk names");
	expect_error("[motion]\ndisks = sda,none\n", "2: disks: \"none\" stands alone, without disk names");
	expect_error("[motion]\ndisks = sda a23456789012345678901234567890123\n",
		     "2: disks: \"a23456789012345678901234567890123\" is not a disk name (sda, nvme0n1), auto or none");
	expect_error("[daemon]\ndry_run = perhaps\n", "2: dry_run: \"perhaps\" is not a boolean (yes or no)");
	expect_error("[history]\nflush_interval = often\n",
		     "2: flush_interval: \"often\" is not a duration (300, 5min, 1h) or 0");
	expect_error("[history]\nflush_interval = 1500ms\n",
		     "2: flush_interval: 1500ms is not 0 or whole seconds up to 1 day");
	expect_error("[history]\nflush_interval = 2d\n",
		     "2: flush_interval: \"2d\" is not a duration (300, 5min, 1h) or 0");
	expect_error("[history]\nflush_interval = 25h\n",
		     "2: flush_interval: 25h is not 0 or whole seconds up to 1 day");
	expect_error("[history]\nkeep = forever\n", "2: unknown key \"keep\" in [history]");
	expect_error("[motion]\npark_time = 60s\n",
		     "2: park_time: 60s is out of range (1000 ms to 30000 ms)");
	expect_error("[http]\ntls_cert_file = tls.crt\n",
		     "2: tls_cert_file: \"tls.crt\" is not an absolute path");
	expect_error("[http]\ntls_key_file = /k\n",
		     "2: tls_key_file without tls_cert_file: TLS needs both the certificate and its key");
	expect_error("[http]\ncameras_without_auth = sure\n",
		     "2: cameras_without_auth: \"sure\" is not a boolean (yes or no)");
	expect_error("[http]\nusers = /etc/hwsight/users\n", "2: unknown key \"users\" in [http]");
	expect_error("[camera a]\ndevice = /dev/video0\n[daemon]\nlisten = 10.0.0.1:9787\n",
		     "4: listen = 10.0.0.1:9787 serves the cameras' frames to every machine that can reach it; "
		     "set [http] basic_auth_users (and tls_cert_file, tls_key_file), listen on 127.0.0.1, "
		     "or say [http] cameras_without_auth = yes");
	/* The first mistake is the one reported. */
	expect_error("[daemon]\nreader = quick\nlog_level = loud\n",
		     "2: reader: \"quick\" is not fast, pread or libsensors");
	expect_error("[daemon]\nno equals\nreader = quick\n",
		     "2: not a [section] or a key = value line");
}

TEST(long_lines_keep_the_count)
{
	char text[1024];
	int n = snprintf(text, sizeof(text), "[daemon]\n# %0500d\nreader = quick\n", 0);

	ASSERT_LT(n, (int)sizeof(text));
	expect_error(text, "3: reader: \"quick\" is not fast, pread or libsensors");
}

/* Found by fuzz/fuzz-config.c: inih read the rest of a long line as a line
 * of its own, a key here, and numbered the lines after it its own way. */
TEST(long_key_lines_are_refused)
{
	char text[1024];
	int n = snprintf(text, sizeof(text), "[daemon]\nexec = echo %0300d listen = 0.0.0.0:80\nreader = quick\n", 0);

	ASSERT_LT(n, (int)sizeof(text));
	expect_error(text, "2: the line is longer than 198 characters");
	n = snprintf(text, sizeof(text), "[daemon]\n# %0500d\nno equals\n", 0);
	ASSERT_LT(n, (int)sizeof(text));
	expect_error(text, "3: not a [section] or a key = value line");
}

TEST(fan_sections)
{
	struct hwsd_config *c = NULL;
	const struct hwsd_fan_conf *f;
	char *error;

	ASSERT_EQ(load("[daemon]\nfan_state = /run/x/fans\n"
		       "[fan cpu]\noutput = w83793-*/pwm2\n"
		       "sources = w83793-*/temp1, coretemp-isa-0000/Package id 0\n"
		       "combine = average\ncurve = 40:0 40:100 60:255\nhysteresis = 0\n"
		       "min_output = 10%\nmax_step = 20\nstart_output = 150\nstart_time = 500ms\n"
		       "spin_down = 30s\ninterval = 1s\nfailsafe_after = 5\non_conflict = yield\n"
		       "[fan mac]\noutput = applesmc-*/fan1\nmode = floor\nsources = applesmc-*/TC0P\n"
		       "curve = 50:2000 70:6000\ncurve_type = steps\n",
		       &c, &error), 0);
	ASSERT_STR_EQ(c->fan_state, "/run/x/fans");
	ASSERT_EQ(c->n_fans, 2);
	f = &c->fans[0];
	ASSERT_STR_EQ(f->name, "cpu");
	ASSERT_STR_EQ(f->chip, "w83793-*");
	ASSERT_STR_EQ(f->output, "pwm2");
	ASSERT_EQ(f->n_sources, 2);
	ASSERT_STR_EQ(f->sources[1].chip, "coretemp-isa-0000");
	ASSERT_STR_EQ(f->sources[1].feature, "Package id 0");
	ASSERT_TRUE(f->average);
	ASSERT_EQ(f->n_points, 3);
	ASSERT_TRUE(f->points[1].temp == 40 && f->points[1].level.value == 100);
	ASSERT_TRUE(f->hysteresis == 0);
	ASSERT_TRUE(f->min_output.percent && f->min_output.value == 10);
	ASSERT_TRUE(f->has_max_step && f->max_step.value == 20);
	ASSERT_EQ(f->start_ms, 500);
	ASSERT_EQ(f->spin_down_ms, 30000);
	ASSERT_EQ(f->interval_ms, 1000);
	ASSERT_EQ(f->failsafe_after, 5);
	ASSERT_FALSE(f->retake);
	f = &c->fans[1];
	ASSERT_TRUE(f->floor && f->steps && !f->average && f->retake);
	ASSERT_EQ(f->failsafe_after, 3);
	ASSERT_TRUE(f->hysteresis == 2);
	hwsd_config_free(c);

	ASSERT_EQ(hwsd_config_load(NULL, &c, NULL), 0);
	ASSERT_STR_EQ(c->fan_state, HWSD_DEFAULT_FAN_STATE);
	hwsd_config_free(c);
}

TEST(fan_mistakes)
{
	static const char head[] = "[fan a]\noutput = w83793-*/pwm1\nsources = w83793-*/temp1\ncurve = 40:0 60:100%\n";
	static const struct { const char *key, *error; } cases[] = {
		{ "output = pwm1", "5: output: \"pwm1\" is not CHIP/NAME (w83793-*/pwm1)" },
		{ "output = w83793-*/temp1", "5: output: \"temp1\" is not pwmN, or fanN on applesmc" },
		{ "output = w83793-*/pwm0", "5: output: \"pwm0\" is not pwmN, or fanN on applesmc" },
		{ "sources = w83793-*/temp1,,x/y", "5: sources: an empty source in \"w83793-*/temp1,,x/y\"" },
		{ "curve = 40:0 30:50%", "5: curve: the points go by rising temperature (30 after 40)" },
		{ "curve = 40", "5: curve: \"40\" is not TEMP:LEVEL (50:40%)" },
		{ "curve = 40:lots", "5: curve: \"lots\" is not an output level (128, or 0% to 100%)" },
		{ "curve = 40:0 40:5 40:9", "5: curve: three points at 40 degrees" },
		{ "curve = 400:0", "5: curve: \"400\" is not a temperature in degrees Celsius" },
		{ "min_output = 120%", "5: min_output: \"120%\" is not an output level (a value such as 128, or 0% to 100%)" },
		{ "hysteresis = -1", "5: hysteresis: \"-1\" is not 0 to 50 degrees" },
		{ "combine = min", "5: combine: \"min\" is not max or average" },
		{ "mode = auto", "5: mode: \"auto\" is not manual or floor" },
		{ "mode = floor", "2: [fan a]: mode = floor is for applesmc's fanN outputs, not pwm1" },
		{ "failsafe_after = 0", "5: failsafe_after: \"0\" is not 1 to 100 readings" },
		{ "on_conflict = fight", "5: on_conflict: \"fight\" is not yield or retake" },
		{ "tach = pwm1", "5: tach: \"pwm1\" is not fanN" },
		{ "min_output = 200\nmax_output = 100", "2: [fan a]: min_output is above max_output" },
		{ "speed = 3", "5: unknown key \"speed\" in [fan a]" },
	};
	char text[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "%s%s\n", head, cases[i].key);
		expect_error(text, cases[i].error);
	}
	expect_error("[fan a b]\noutput = x-*/pwm1\n", "2: [fan a b]: a fan name is letters, digits, '-' and '_'");
	expect_error("[fan a]\nsources = w83793-*/temp1\ncurve = 40:0\n", "2: [fan a]: no output");
	expect_error("[fan a]\noutput = w83793-*/pwm1\ncurve = 40:0\n", "2: [fan a]: no sources");
	expect_error("[fan a]\noutput = w83793-*/pwm1\nsources = w83793-*/temp1\n", "2: [fan a]: no curve");
	expect_error("[fan a]\noutput = w83793-*/pwm1\nsources = w83793-*/temp1\ncurve = 40:0\n"
		     "[fan b]\noutput = w83793-*/pwm1\nsources = w83793-*/temp1\ncurve = 40:0\n",
		     "6: [fan b]: w83793-*/pwm1 is [fan a]'s output already");
	expect_error("[daemon]\nfan_state = run/fans\n", "2: fan_state: \"run/fans\" is not an absolute path");
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
