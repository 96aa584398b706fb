/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_CAMERA_CAMERA_INTERNAL_H
#define HWS_CAMERA_CAMERA_INTERNAL_H

/*
 * What the camera files share besides <hwsight/camera.h>: the usbvision
 * driver's USB id table (usbvision-ids.c), which enum.c uses to recognise a
 * grabber by its id and name its model.
 */

#include <stddef.h>
#include <stdint.h>

struct hws__usbvision_id {
	uint16_t vendor;
	uint16_t product;
	const char *model;       /* the name the usbvision driver gave it */
};

/* Sorted by vendor, then product, for hws__usbvision_model()'s bsearch. */
extern const struct hws__usbvision_id hws__usbvision_ids[];
extern const size_t hws__usbvision_n_ids;

/**
 * hws__usbvision_model - the model of a usbvision grabber by its USB id
 * Return: the model name, or NULL when the usbvision driver does not know
 * the id.
 */
const char *hws__usbvision_model(uint16_t vendor, uint16_t product);

#endif
