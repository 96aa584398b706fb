/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_CONFIG_H
#define HWSD_CONFIG_H

/* hwsightd.conf, as hwsightd.conf(5) describes it. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hwsight/camera.h>
#include <hwsight/image.h>
#include <hwsight/sensors.h>

#define HWSD_DEFAULT_CONFIG "/etc/hwsight/hwsightd.conf"
/* Where the outputs' original states wait for --restore-fans. */
#define HWSD_DEFAULT_FAN_STATE "/run/hwsight/fans.state"

struct hwsd_threshold {
	char *feature;          /* a feature name ("temp1") or its label */
	bool is_max;            /* FEATURE.max, else FEATURE.min */
	double limit;
	unsigned line;
};

struct hwsd_chip_conf {
	char *pattern;          /* a libsensors chip name pattern */
	unsigned line;          /* of its first key, for messages */
	unsigned poll_ms;       /* 0: [daemon] poll_interval */
	bool chip_alarms;
	double hysteresis;
	bool hysteresis_percent;
	struct hwsd_threshold *thresholds;
	size_t n_thresholds;
};

struct hwsd_camera_conf {
	char *name;
	char *device;
	char *directory;        /* NULL: STATE/snapshots */
	unsigned line;
	uint32_t width, height; /* 0: the driver's */
	struct hws_fract interval; /* {0,0}: the driver's */
	unsigned snapshot_ms;   /* 0: no periodic snapshot */
	bool on_alarm, on_motion;
	enum hws_image_type type;
	int quality;
	enum hws_image_chroma stream_chroma; /* of the live stream's JPEGs */
	unsigned skip_frames;
	unsigned keep;          /* 0: keep every snapshot */
};

/* The kernel's DISK_NAME_LEN, less its NUL. */
#define HWSD_DISK_NAME_MAX 31

struct hwsd_motion_conf {
	bool enabled;
	unsigned sensitivity;
	unsigned interval_ms;
	bool auto_disks;        /* disks = auto (the default): every rotational
				 * disk that can unload its heads */
	char **disks;           /* the disks named; none with auto or none */
	size_t n_disks;
	unsigned park_ms;
};

/* An output level: a value in the output's unit (duty 0..255, RPM) or a
 * percentage of its range. */
struct hwsd_fan_level {
	double value;
	bool percent;
};

struct hwsd_fan_point {
	double temp;            /* degrees Celsius */
	struct hwsd_fan_level level;
};

struct hwsd_fan_source {
	char *chip;             /* a chip name pattern */
	char *feature;          /* a feature name ("temp1") or its label */
};

struct hwsd_fan_conf {
	char *name;
	unsigned line;
	char *chip;             /* the output's chip name pattern */
	char *output;           /* "pwm1", or "fan1" on applesmc */
	char *tach;             /* the fanN measuring it; NULL: its own */
	bool floor;             /* mode = floor (applesmc) */
	struct hwsd_fan_source *sources;
	size_t n_sources;
	bool average;           /* combine = average, else max */
	struct hwsd_fan_point *points; /* by rising temperature */
	size_t n_points;
	bool steps;             /* curve_type = steps, else linear */
	double hysteresis;      /* degrees Celsius */
	struct hwsd_fan_level min_output, max_output, start_output, max_step;
	bool has_max_step;
	unsigned start_ms;      /* the kick's length; 0: no kick */
	unsigned spin_down_ms;
	unsigned interval_ms;   /* 0: [daemon] poll_interval */
	unsigned failsafe_after;
	bool retake;            /* on_conflict = retake, else yield */
};

/* [http]: who may read what the HTTP side serves. The files are read
 * beside the config (hwsd_http_access_load()); the lines are for its
 * messages. */
struct hwsd_http_conf {
	char *tls_cert_file;    /* PEM; with tls_key_file, HTTPS only */
	unsigned tls_cert_line;
	char *tls_key_file;
	unsigned tls_key_line;
	char *basic_auth_users; /* USER:BCRYPT lines; NULL: no password asked */
	unsigned basic_auth_users_line;
	bool cameras_without_auth; /* serve the cameras beyond this machine
				    * to whoever asks */
};

struct hwsd_config {
	char *path;             /* NULL when running on the defaults */
	unsigned poll_ms;
	enum hws_sensors_reader reader;
	char *sensors_config;
	char *state_dir;
	char *exec;
	char *listen;           /* HTTP: "127.0.0.1:9787"; NULL: not at all */
	unsigned listen_line;   /* 0: the default */
	struct hwsd_http_conf http;
	int log_target;         /* enum hwsd_log_target */
	int log_level;
	struct hwsd_chip_conf *chips;
	size_t n_chips;
	struct hwsd_camera_conf *cameras;
	size_t n_cameras;
	struct hwsd_motion_conf motion;
	struct hwsd_fan_conf *fans;
	size_t n_fans;
	char *fan_state;        /* the state file of the taken outputs */
	bool dry_run;           /* dry_run = yes, or --dry-run: no output is written */
	unsigned history_flush_s; /* [history] flush_interval; 0: at each poll */
};

/*
 * hwsd_config_load - read and check a config file
 * @path: the file; NULL for the defaults (no file)
 * @ret_error: on -EINVAL, "FILE:LINE: reason" (to be freed)
 *
 * Return: 0, -ENOENT and other errnos of opening it, -EINVAL, -ENOMEM.
 */
int hwsd_config_load(const char *path, struct hwsd_config **ret_config, char **ret_error);

/*
 * hwsd_config_parse - the same for a config already open
 * @f: where to read it from (a file, fmemopen() for the fuzz target)
 * @name: what "NAME:LINE: reason" calls it; also kept as the config's path
 *
 * Return: 0, -EIO (a read failed), -EINVAL, -ENOMEM.
 */
int hwsd_config_parse(FILE *f, const char *name, struct hwsd_config **ret_config, char **ret_error);

struct hwsd_config *hwsd_config_free(struct hwsd_config *c);

/* The [chip] section that applies to a chip, or NULL. */
const struct hwsd_chip_conf *hwsd_config_chip(const struct hwsd_config *c,
					      const struct hws_sensors *s,
					      const struct hws_chip *chip);

/*
 * hwsd_config_exposed_cameras - would @listen serve @c's cameras to other
 * machines without a password, and the config not say that it may?
 * @listen: "ADDRESS:PORT"; NULL or "off": not at all
 *
 * Only a loopback address (127.0.0.0/8, ::1) keeps them on this machine.
 */
bool hwsd_config_exposed_cameras(const struct hwsd_config *c, const char *listen);

/* Is the address of @listen ("ADDRESS:PORT", "[ADDRESS]:PORT") a loopback
 * address? Return: 1, 0, or -EINVAL when it is no numeric address. */
int hwsd_listen_is_loopback(const char *listen);

/* "2s", "500ms", "5min", "1h", "3" (seconds) into ms. Return: 0 or -EINVAL. */
int hwsd_parse_duration(const char *text, unsigned *ret_ms);

#endif
