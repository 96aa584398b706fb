/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The usbvision id table: a grabber is recognised, and its model named, by
 * its USB id even with no driver loaded, so a wrong or missing id is a
 * grabber the user is told nothing about.
 */
#include "camera/camera-internal.h"

#include "task.h"

/* The usbvision driver's own table had this many ids when it left the
 * kernel (drivers/media/usb/usbvision/usbvision-cards.c). */
#define USBVISION_IDS 67

TEST(count)
{
	ASSERT_EQ(hws__usbvision_n_ids, USBVISION_IDS);
}

TEST(no_duplicates)
{
	for (size_t i = 0; i < hws__usbvision_n_ids; i++)
		for (size_t j = i + 1; j < hws__usbvision_n_ids; j++)
			if (hws__usbvision_ids[i].vendor == hws__usbvision_ids[j].vendor &&
			    hws__usbvision_ids[i].product == hws__usbvision_ids[j].product)
				FAIL("%04x:%04x appears at %zu and %zu", hws__usbvision_ids[i].vendor,
				     hws__usbvision_ids[i].product, i, j);
}

/* The lookup halves the table, which finds nothing in an unsorted one. */
TEST(sorted)
{
	for (size_t i = 1; i < hws__usbvision_n_ids; i++) {
		uint32_t a = (uint32_t)hws__usbvision_ids[i - 1].vendor << 16 | hws__usbvision_ids[i - 1].product;
		uint32_t b = (uint32_t)hws__usbvision_ids[i].vendor << 16 | hws__usbvision_ids[i].product;

		if (a >= b)
			FAIL("entry %zu (%04x:%04x) is not after entry %zu (%04x:%04x)", i,
			     hws__usbvision_ids[i].vendor, hws__usbvision_ids[i].product, i - 1,
			     hws__usbvision_ids[i - 1].vendor, hws__usbvision_ids[i - 1].product);
	}
}

/* Every entry is found by the lookup, under its own name. */
TEST(every_entry_found)
{
	for (size_t i = 0; i < hws__usbvision_n_ids; i++) {
		const struct hws__usbvision_id *e = &hws__usbvision_ids[i];
		const char *model = hws__usbvision_model(e->vendor, e->product);

		ASSERT_NOT_NULL(model);
		ASSERT_TRUE(*model);
		ASSERT_STR_EQ(model, e->model);
	}
}

TEST(known_ids)
{
	static const struct {
		uint16_t vendor, product;
		const char *model;
	} known[] = {
		/* the two ends of the table, and some from the middle */
		{ 0x050d, 0x0106, "Belkin USB VideoBus II Adapter" },
		{ 0x2400, 0x4200, "Hauppauge WinTv-USB" },
		{ 0x0573, 0x4d31, "Hauppauge WinTV USB Pro (PAL B/G FM)" },
		{ 0x0573, 0x2101, "Zoran Co. PMD (Nogatech) AV-grabber Manhattan" },
		{ 0x0573, 0x3001, "Nogatech USB MicroCam PAL (NV3001P)" },
		{ 0x07d0, 0x0004, "Dazzle Fusion Model DVC-80 Rev 1 (PAL)" },
		{ 0x2304, 0x0109, "Pinnacle Studio PCTV USB (SECAM)" },
		{ 0x0a6f, 0x0400, "Xanboo" },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const char *model = hws__usbvision_model(known[i].vendor, known[i].product);

		if (!model)
			FAIL("%04x:%04x not found", known[i].vendor, known[i].product);
		ASSERT_STR_EQ(model, known[i].model);
	}
}

TEST(unknown_ids)
{
	/* Neighbours of real ids, a UVC webcam, and the zero id. */
	ASSERT_NULL(hws__usbvision_model(0x0573, 0x4d33));
	ASSERT_NULL(hws__usbvision_model(0x0573, 0x0000));
	ASSERT_NULL(hws__usbvision_model(0x0574, 0x4d31));
	ASSERT_NULL(hws__usbvision_model(0x2304, 0x0108));
	ASSERT_NULL(hws__usbvision_model(0x2400, 0x4201));
	ASSERT_NULL(hws__usbvision_model(0x046d, 0x0825));
	ASSERT_NULL(hws__usbvision_model(0x0000, 0x0000));
	ASSERT_NULL(hws__usbvision_model(0xffff, 0xffff));
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
