/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_CAMERA_H
#define HWSIGHT_CAMERA_H

/*
 * V4L2 capture devices (webcams, OV7670 on the OLPC Cafe controller,
 * usbvision TV grabbers, vivid ...), captured through libv4l2 and paced on
 * the 300 Hz tick grid.
 *
 * A frame interval is 300 Hz-friendly when it is a whole number of 1/300 s
 * ticks (1/25 s = 12 ticks, 1/30 s = 10 ticks). The library sets such an
 * interval on the driver when the driver offers it; otherwise it captures
 * at the nearest faster rate the driver offers (or the rate its TV
 * standard fixes) and keeps one frame per grid point, chosen by the
 * driver's buffer timestamps, never by the time of dequeue. The statistics
 * say what really happened.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsight/common.h>
#include <hwsight/frame.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the 300 Hz grid (pure functions) ---------------------------------- */

/**
 * hws_interval_ticks - an interval in 1/300 s ticks
 * Return: the number of ticks (> 0), or -EDOM if it is not a whole number
 * of ticks, or -EINVAL for a zero or malformed interval.
 */
HWS_EXPORT long hws_interval_ticks(struct hws_fract interval);

/** hws_interval_is_friendly - is it a whole number (>= 1) of 1/300 s ticks */
HWS_EXPORT bool hws_interval_is_friendly(struct hws_fract interval);

/**
 * hws_fps_parse - read a frame rate as a user writes it
 * @text: "25", "29.97", "30000/1001", "7.5"
 * @ret_interval: the frame interval (the inverse of the rate), reduced
 * Return: 0 or -EINVAL.
 */
HWS_EXPORT int hws_fps_parse(const char *text, struct hws_fract *ret_interval);

/**
 * hws_friendly_neighbours - the 300 Hz-friendly rates nearest to an interval
 * @interval: a requested interval, friendly or not
 * @ret_slower: the nearest friendly interval at or above it (a lower fps)
 * @ret_faster: the nearest friendly interval at or below it (a higher fps),
 *              {0, 0} when none exists (faster than 300 fps)
 */
HWS_EXPORT void hws_friendly_neighbours(struct hws_fract interval, struct hws_fract *ret_slower,
					struct hws_fract *ret_faster);

/* ---- enumeration -------------------------------------------------------- */

struct hws_camera_info {
	char devnode[64];        /* "/dev/video0" */
	char stable[256];        /* "/dev/v4l/by-id/..." or by-path, "" if none */
	char driver[32];         /* "uvcvideo", "usbvision", "cafe_ccic", "vivid" */
	char card[64];
	char bus_info[64];
	char model[128];         /* the usbvision id table's name, else the card */
	uint16_t usb_vendor;     /* 0 when not a USB device */
	uint16_t usb_product;
	uint32_t device_caps;    /* V4L2_CAP_*; 0 for a node that could not be opened (busy) */
	bool usbvision;          /* by driver name or by USB id */
	bool can_set_interval;   /* V4L2_CAP_TIMEPERFRAME on the capture type */
};

/**
 * hws_camera_list - every V4L2 video capture node, in devnode order
 * Return: the number of cameras (0 is fine) or a negative errno.
 * Free the list with free().
 */
HWS_EXPORT int hws_camera_list(struct hws_camera_info **ret_list);

/**
 * hws_camera_info_get - identity of one node
 * Return: 0, -ENOENT (no such device), -ENOTTY (not V4L2),
 * -ENODEV (not a video capture device), or another negative errno.
 */
HWS_EXPORT int hws_camera_info_get(const char *devnode, struct hws_camera_info *ret_info);

/* A USB grabber of the usbvision family, whatever the kernel made of it. */
struct hws_usb_grabber {
	uint16_t vendor;
	uint16_t product;
	uint8_t bus;             /* USB bus and device number, as lsusb shows */
	uint8_t address;
	char model[128];         /* from the usbvision id table */
	char driver[32];         /* the driver bound to it, "" if none */
	char devnode[64];        /* its video node, "" if none */
};

/**
 * hws_camera_usb_grabbers - every plugged-in USB device the usbvision
 * driver was written for, found by USB id through libusb
 *
 * usbvision left mainline Linux in 2020, so on newer kernels such a
 * grabber has no driver and no video node, and would not show in
 * hws_camera_list(): this says it is there and why it cannot be used.
 *
 * Return: the number found (0 is fine) or a negative errno. Free the list
 * with free().
 */
HWS_EXPORT int hws_camera_usb_grabbers(struct hws_usb_grabber **ret_list);

struct hws_camera_mode {
	uint32_t fourcc;
	char description[32];    /* the driver's format name */
	uint32_t width;
	uint32_t height;
	size_t n_intervals;      /* 0 when the driver cannot list them */
	struct hws_fract *intervals; /* discrete intervals, fastest first */
	bool emulated;           /* produced by libv4lconvert, not the device */
};

/**
 * hws_camera_modes - every format, size and interval a node offers
 * Return: the number of modes or a negative errno. Free with
 * hws_camera_modes_free().
 */
HWS_EXPORT int hws_camera_modes(const char *devnode, struct hws_camera_mode **ret_modes);
HWS_EXPORT void hws_camera_modes_free(struct hws_camera_mode *modes, size_t n);

/* ---- capture ------------------------------------------------------------ */

struct hws_capture_request {
	uint32_t width;          /* 0: keep the driver's current size */
	uint32_t height;
	uint32_t fourcc;         /* 0: keep the driver's current format */
	struct hws_fract interval; /* {0, 0}: the driver's current, no pacing */
	unsigned buffers;        /* 0: 4 */
	bool convert;            /* let libv4lconvert make a format the device lacks */
	/*
	 * The formats the caller can use (for images, hws_image_formats()),
	 * read during hws_camera_negotiate() only; NULL for any. See there.
	 */
	const uint32_t *accept;
	size_t n_accept;
};

struct hws_capture_setup {
	uint32_t width;
	uint32_t height;
	uint32_t fourcc;         /* the frames' format */
	uint32_t device_fourcc;  /* what the device sends: fourcc, or libv4lconvert's source */
	uint32_t bytesperline;
	uint32_t sizeimage;
	struct hws_fract driver_interval; /* what the driver runs at */
	struct hws_fract target_interval; /* what the caller gets */
	bool decimating;         /* keeping one frame per grid point */
	bool converting;         /* libv4lconvert converts device_fourcc to fourcc */
};

struct hws_capture_stats {
	uint64_t delivered;      /* dequeued from the driver */
	uint64_t dropped;        /* lost by the driver: gaps in sequence */
	uint64_t decimated;      /* skipped to stay on the tick grid */
	uint64_t kept;           /* handed to the caller */
	double mean_interval_ms; /* between kept frames, by driver timestamps */
	double jitter_ms;        /* standard deviation of those intervals */
	double mean_interval_ticks;
	double jitter_ticks;
	struct hws_fract driver_interval;
	struct hws_fract target_interval;
};

struct hws_camera;

/**
 * hws_camera_open - open a capture node through libv4l2
 * Return: 0, -ENOENT, -EACCES, -EBUSY (another program is capturing),
 * -ENODEV (not a capture device), or another negative errno.
 */
HWS_EXPORT int hws_camera_open(const char *devnode, struct hws_camera **ret_camera);

/**
 * hws_camera_negotiate - set size, format and frame interval
 *
 * A requested interval that is not 300 Hz-friendly is refused with
 * -EDOM (hws_friendly_neighbours() tells what to suggest). One the driver
 * offers is set with VIDIOC_S_PARM; otherwise the device runs at the
 * nearest faster rate it offers, or at its TV standard's rate, and frames
 * are decimated on the grid. A size or format the device cannot give is
 * -EINVAL (unless @req->convert and libv4lconvert can make it); a rate
 * it cannot reach even by decimation is -ERANGE.
 *
 * With @req->accept, the frames come in one of those formats. The format
 * asked for (@req->fourcc, else the device's current one) is kept when the
 * caller accepts it. Else, with no format asked for, the device is set to
 * the first format it offers that the caller accepts; failing that, or
 * when the format asked for is not accepted, libv4lconvert converts to one
 * that is (RGB24 first), from @req->fourcc itself: -EOPNOTSUPP when
 * libv4lconvert cannot read that format. All this is decided before
 * libv4l2 wraps the device, which fixes its conversion for the life of
 * @cam: a later negotiation that needs the other mode is -EBUSY.
 *
 * Return: 0 or a negative errno; @ret_setup says what was obtained.
 */
HWS_EXPORT int hws_camera_negotiate(struct hws_camera *cam, const struct hws_capture_request *req,
				    struct hws_capture_setup *ret_setup);

/**
 * hws_camera_start - map buffers and start streaming
 *
 * Return: 0, -ENOBUFS when the driver grants fewer than the two buffers
 * streaming needs, or another negative errno.
 */
HWS_EXPORT int hws_camera_start(struct hws_camera *cam);

/**
 * hws_camera_next - the next frame on the grid
 * @timeout_ms: how long to wait for the driver, per frame
 *
 * The frame before is given back to the driver first. Frames the pacer
 * skips never reach the caller.
 *
 * Return: 0, -ETIMEDOUT (no frame from the driver in time), -ENODEV (the
 * device went away), -EINTR (a signal arrived), or another negative errno.
 */
HWS_EXPORT int hws_camera_next(struct hws_camera *cam, int timeout_ms, struct hws_frame *ret_frame);

/** hws_camera_stop - stop streaming and unmap. Return: 0 or -errno. */
HWS_EXPORT int hws_camera_stop(struct hws_camera *cam);

/** hws_camera_stats - the pacing statistics so far (always available) */
HWS_EXPORT void hws_camera_stats(const struct hws_camera *cam, struct hws_capture_stats *ret_stats);

/** hws_camera_fd - the file descriptor to poll() for readability */
HWS_EXPORT int hws_camera_fd(const struct hws_camera *cam);

/** hws_camera_close - stop if needed and close. Return: NULL. */
HWS_EXPORT struct hws_camera *hws_camera_close(struct hws_camera *cam);

#ifdef __cplusplus
}
#endif

#endif
