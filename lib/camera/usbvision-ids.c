/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The USB grabbers the usbvision driver (Nogatech/Zoran NT100x and
 * friends, Linux 2.6.x to 5.x) drives: their USB ids and the model names
 * the driver gave them. The driver left mainline in 2020, so a grabber may
 * well be plugged in with no driver and no video node; its id is how it is
 * still recognised.
 *
 * Kept sorted by vendor, then product: hws__usbvision_model() searches it
 * by halves, and the unit test checks the order.
 */
#include <stdlib.h>

#include "camera/camera-internal.h"

const struct hws__usbvision_id hws__usbvision_ids[] = {
	{ 0x050d, 0x0106, "Belkin USB VideoBus II Adapter" },
	{ 0x050d, 0x0207, "Belkin Components USB VideoBus" },
	{ 0x050d, 0x0208, "Belkin USB VideoBus II" },
	{ 0x0571, 0x0002, "echoFX InterView Lite" },
	{ 0x0573, 0x0003, "USBGear USBG-V1 resp. HAMA USB" },
	{ 0x0573, 0x0400, "D-Link V100" },
	{ 0x0573, 0x2000, "X10 USB Camera" },
	{ 0x0573, 0x2101, "Zoran Co. PMD (Nogatech) AV-grabber Manhattan" },
	{ 0x0573, 0x2d00, "Hauppauge WinTV USB Live (PAL B/G)" },
	{ 0x0573, 0x2d01, "Hauppauge WinTV USB Live Pro (NTSC M/N)" },
	{ 0x0573, 0x3000, "Nogatech USB MicroCam NTSC (NV3000N)" },
	{ 0x0573, 0x3001, "Nogatech USB MicroCam PAL (NV3001P)" },
	{ 0x0573, 0x4100, "Nogatech USB-TV (NTSC) FM" },
	{ 0x0573, 0x4110, "PNY USB-TV (NTSC) FM" },
	{ 0x0573, 0x4450, "PixelView PlayTv-USB PRO (PAL) FM" },
	{ 0x0573, 0x4550, "ZTV ZT-721 2.4GHz USB A/V Receiver" },
	{ 0x0573, 0x4d00, "Hauppauge WinTV USB (NTSC M/N)" },
	{ 0x0573, 0x4d01, "Hauppauge WinTV USB (PAL B/G)" },
	{ 0x0573, 0x4d02, "Hauppauge WinTV USB (PAL I)" },
	{ 0x0573, 0x4d03, "Hauppauge WinTV USB (PAL/SECAM L)" },
	{ 0x0573, 0x4d04, "Hauppauge WinTV USB (PAL D/K)" },
	{ 0x0573, 0x4d10, "Hauppauge WinTV USB (NTSC FM)" },
	{ 0x0573, 0x4d11, "Hauppauge WinTV USB (PAL B/G FM)" },
	{ 0x0573, 0x4d12, "Hauppauge WinTV USB (PAL I FM)" },
	{ 0x0573, 0x4d14, "Hauppauge WinTV USB (PAL D/K FM)" },
	{ 0x0573, 0x4d20, "Hauppauge WinTV USB Pro (NTSC M/N) V3" },
	{ 0x0573, 0x4d21, "Hauppauge WinTV USB Pro (PAL B/G)" },
	{ 0x0573, 0x4d22, "Hauppauge WinTV USB Pro (PAL I)" },
	{ 0x0573, 0x4d23, "Hauppauge WinTV USB Pro (PAL/SECAM L)" },
	{ 0x0573, 0x4d24, "Hauppauge WinTV USB Pro (PAL D/K)" },
	{ 0x0573, 0x4d25, "Hauppauge WinTV USB Pro (PAL/SECAM BGDK/I/L)" },
	{ 0x0573, 0x4d26, "Hauppauge WinTV USB Pro (PAL/SECAM BGDK/I/L) V2" },
	{ 0x0573, 0x4d27, "Hauppauge WinTV USB Pro (PAL B/G) V2" },
	{ 0x0573, 0x4d28, "Hauppauge WinTV USB Pro (PAL B/G,D/K)" },
	{ 0x0573, 0x4d29, "Hauppauge WinTV USB Pro (PAL I,D/K)" },
	{ 0x0573, 0x4d2a, "Hauppauge WinTV USB Pro (NTSC M/N)" },
	{ 0x0573, 0x4d2b, "Hauppauge WinTV USB Pro (NTSC M/N) V2" },
	{ 0x0573, 0x4d2c, "Hauppauge WinTV USB Pro (PAL/SECAM B/G/I/D/K/L)" },
	{ 0x0573, 0x4d30, "Hauppauge WinTV USB Pro (NTSC M/N FM)" },
	{ 0x0573, 0x4d31, "Hauppauge WinTV USB Pro (PAL B/G FM)" },
	{ 0x0573, 0x4d32, "Hauppauge WinTV USB Pro (PAL I FM)" },
	{ 0x0573, 0x4d34, "Hauppauge WinTV USB Pro (PAL D/K FM)" },
	{ 0x0573, 0x4d35, "Hauppauge WinTV USB Pro (Temic PAL/SECAM B/G/I/D/K/L FM)" },
	{ 0x0573, 0x4d36, "Hauppauge WinTV USB Pro (Temic PAL B/G FM)" },
	{ 0x0573, 0x4d37, "Hauppauge WinTV USB Pro (PAL/SECAM B/G/I/D/K/L FM)" },
	{ 0x0573, 0x4d38, "Hauppauge WinTV USB Pro (NTSC M/N FM) V2" },
	{ 0x0768, 0x0006, "Camtel Technology USB TV Genie Pro FM Model TVB330" },
	{ 0x07d0, 0x0001, "Digital Video Creator I" },
	{ 0x07d0, 0x0002, "Global Village GV-007 (NTSC)" },
	{ 0x07d0, 0x0003, "Dazzle Fusion Model DVC-50 Rev 1 (NTSC)" },
	{ 0x07d0, 0x0004, "Dazzle Fusion Model DVC-80 Rev 1 (PAL)" },
	{ 0x07d0, 0x0005, "Dazzle Fusion Model DVC-90 Rev 1 (SECAM)" },
	{ 0x07f8, 0x9104, "Eskape Labs MyTV2Go" },
	{ 0x0a6f, 0x0400, "Xanboo" },
	{ 0x2304, 0x0109, "Pinnacle Studio PCTV USB (SECAM)" },
	{ 0x2304, 0x010d, "Pinnacle Studio PCTV USB (PAL)" },
	{ 0x2304, 0x0110, "Pinnacle Studio PCTV USB (PAL) FM" },
	{ 0x2304, 0x0111, "Miro PCTV USB" },
	{ 0x2304, 0x0112, "Pinnacle Studio PCTV USB (NTSC) FM" },
	{ 0x2304, 0x0113, "Pinnacle Studio PCTV USB (NTSC) FM V3" },
	{ 0x2304, 0x0210, "Pinnacle Studio PCTV USB (PAL) FM V2" },
	{ 0x2304, 0x0212, "Pinnacle Studio PCTV USB (NTSC) FM V2" },
	{ 0x2304, 0x0214, "Pinnacle Studio PCTV USB (PAL) FM V3" },
	{ 0x2304, 0x0300, "Pinnacle Studio Linx Video input cable (NTSC)" },
	{ 0x2304, 0x0301, "Pinnacle Studio Linx Video input cable (PAL)" },
	{ 0x2304, 0x0419, "Pinnacle PCTV Bungee USB (PAL) FM" },
	{ 0x2400, 0x4200, "Hauppauge WinTv-USB" },
};

const size_t hws__usbvision_n_ids = sizeof(hws__usbvision_ids) / sizeof(hws__usbvision_ids[0]);

static uint32_t id_key(uint16_t vendor, uint16_t product)
{
	return (uint32_t)vendor << 16 | product;
}

static int compare_id(const void *key, const void *element)
{
	uint32_t a = *(const uint32_t *)key;
	const struct hws__usbvision_id *e = element;
	uint32_t b = id_key(e->vendor, e->product);

	return a < b ? -1 : a > b;
}

const char *hws__usbvision_model(uint16_t vendor, uint16_t product)
{
	uint32_t key = id_key(vendor, product);
	const struct hws__usbvision_id *e;

	e = bsearch(&key, hws__usbvision_ids, hws__usbvision_n_ids, sizeof(hws__usbvision_ids[0]),
		    compare_id);
	return e ? e->model : NULL;
}
