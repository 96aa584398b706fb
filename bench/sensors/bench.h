/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_BENCH_SENSORS_H
#define HWS_BENCH_SENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * hwsight-bench-sensors: one full poll of every hwmon chip, by hwsight's
 * readers and by the tools people use today, side by side. main.c drives;
 * each way of polling is a variant behind struct variant_ops, one file per
 * family (hwsight.c, libsensors.c, command.c, node-exporter.c).
 */

struct bench_opts {
	unsigned rounds;           /* K: the wall time is the median of K rounds */
	unsigned polls;            /* in-process polls per round */
	unsigned ext_polls;        /* polls per round of the external peers */
	unsigned strace_polls;     /* polls counted under strace, in-process */
	unsigned ext_strace_polls; /* the same for the external peers */
	bool quick;
	bool json;
	const char *config;        /* a sensors.conf for every variant, or NULL */
	unsigned port;             /* node_exporter's port */
	const char *variants;      /* comma-separated selection, or NULL: all */
	const char *only;          /* --only: N polls of this variant, nothing else */
	long only_polls;
};

/* Every readable value of one poll, keyed "chip/attribute", to compare. */
struct snap_value {
	char key[128];
	double value;
	int error;                 /* 0, or the read failed */
};

struct snapshot {
	struct snap_value *v;
	size_t n;
};

struct variant;

struct variant_ops {
	const char *name;          /* "fast-live" */
	const char *what;          /* the calls a poll makes, for the footnotes */
	/* Polls start a process or cost an HTTP request: run fewer of them. */
	bool external;
	/* poll() cannot tell how many values it read. */
	bool values_unknown;
	/* What a family of variants tells its members apart by. */
	const void *data;
	/* Once per run; may fail with -ENOENT for "peer not installed". */
	int (*init)(struct variant *v);
	/* Once per round: open, and one warm-up poll. */
	int (*begin)(struct variant *v);
	/* One full poll. Return: the values read, or -errno. */
	int (*poll)(struct variant *v);
	/* Every value of the last poll, sorted by key. May be NULL. */
	int (*snapshot)(struct variant *v, struct snapshot *ret);
	void (*end)(struct variant *v);
	void (*fini)(struct variant *v);
	/* CPU time spent so far by whatever does the polling, in ns. */
	int64_t (*cpu_ns)(struct variant *v);
	/* A server to count syscalls of with strace -p, instead of running
	 * this program again under strace. May be NULL. */
	pid_t (*server_pid)(struct variant *v);
};

struct syscall_count {
	char name[32];
	double calls;
};

struct variant_result {
	bool ran, skipped, failed;
	char note[320];            /* why skipped or failed */
	int values;                /* per poll, -1 if unknown */
	double cpu_us;             /* per poll, median of the rounds */
	double cpu_all_us;         /* per poll, over every poll of every round */
	double wall_us;            /* per poll, median of the rounds */
	double *round_cpu_us;      /* per poll, of each round done */
	double *round_wall_us;
	unsigned rounds_done;
	unsigned long polls;
	bool have_syscalls;
	double syscalls;           /* per poll */
	struct syscall_count *calls; /* per poll, by call, most first */
	size_t n_calls;
	long mismatches;           /* against raw libsensors, -1 if not compared */
	long compared;
	char detail[400];          /* what the values are, if the variant can tell */
};

struct variant {
	const struct variant_ops *ops;
	const struct bench_opts *opts;
	void *priv;
	char error[256];           /* set by an op that fails */
	struct variant_result res;
};

extern const struct variant_ops variant_fast_live;
extern const struct variant_ops variant_fast_all;
extern const struct variant_ops variant_pread_live;
extern const struct variant_ops variant_hws_libsensors;
extern const struct variant_ops variant_libsensors;
extern const struct variant_ops variant_sensors_cmd;
extern const struct variant_ops variant_node_exporter;

/* hwsight.c: how many chips hwsight finds (0 also when hwmon is absent). */
int hwsight_chip_count(const char *config, size_t *ret_count, char *names, size_t size);

/* Helpers for the ops. */
void variant_error(struct variant *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int64_t cpu_self_ns(void);
int64_t cpu_children_ns(void);
int snapshot_add(struct snapshot *s, const char *chip, const char *attr, double value, int error);
void snapshot_sort(struct snapshot *s);
void snapshot_clear(struct snapshot *s);
/* Values of @a that differ from @ref, or that one of them lacks. */
long snapshot_compare(const struct snapshot *a, const struct snapshot *ref, const char *name,
		      bool verbose, long *ret_compared);

/* strace.c */
struct strace_counts {
	long total;
	struct syscall_count *calls; /* absolute counts */
	size_t n;
};
bool strace_available(void);
/* strace -f -c around argv (argv[0] a path); the counts of the whole run. */
int strace_run(char *const argv[], struct strace_counts *ret);
/* strace -f -c -p pid from now until strace_detach(). */
int strace_attach(pid_t pid, pid_t *ret_tracer, char *outfile, size_t size);
int strace_detach(pid_t tracer, const char *outfile, struct strace_counts *ret);
/* (run - base) / polls, by call, most first. */
void strace_per_poll(const struct strace_counts *run, const struct strace_counts *base,
		     unsigned long polls, struct variant_result *res);
void strace_counts_clear(struct strace_counts *c);

/* report.c */
void report_table(struct variant *const *vs, size_t n, const struct bench_opts *o, const char *chips);
void report_json(struct variant *const *vs, size_t n, const struct bench_opts *o, const char *chips);

#endif
