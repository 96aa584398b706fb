# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Synthesises a motion trace (tests/traces/motion/README.md) from the
# physics of one situation, as one accelerometer would report it:
#   awk -v sensor=ams -v situation=slide-off -f synth.awk
# The same sensor and situation always give the same trace: the noise
# comes from a Park-Miller generator seeded from their names, whose
# arithmetic is exact in any awk's doubles.
#
# Accelerations are worked out in g in the machine's frame (x to the
# right, y to the back edge, z up out of the keyboard; flat at rest reads
# 0, 0, +1), then scaled to the sensor's counts, offset by a rest error
# and clamped to what its driver can print.

function rnd() {
	seed = (seed * 16807) % 2147483647
	return seed / 2147483647
}

# Roughly normal, unit variance: the sum of four uniforms.
function gauss() {
	return (rnd() + rnd() + rnd() + rnd() - 2) * 1.7320508
}

function clamp(v, lo, hi) {
	return v < lo ? lo : v > hi ? hi : v
}

function round(v) {
	return v < 0 ? -int(-v + 0.5) : int(v + 0.5)
}

# 0 before t0, 1 after t0 + d, a raised cosine between.
function ramp(t, t0, d) {
	if (t <= t0)
		return 0
	if (t >= t0 + d)
		return 1
	return (1 - cos(PI * (t - t0) / d)) / 2
}

# A half sine of amplitude a over [t0, t0 + d], 0 elsewhere.
function pulse(t, t0, d, a) {
	return t < t0 || t > t0 + d ? 0 : a * sin(PI * (t - t0) / d)
}

# A knock: a ring at f Hz from t0, decaying with time constant tau.
function knock(t, t0, a, tau, f) {
	return t < t0 ? 0 : a * exp(-(t - t0) / tau) * cos(2 * PI * f * (t - t0))
}

# Gravity seen by a machine whose left edge is lifted by roll radians
# (x reads -sin(roll)) and back edge by pitch radians (y reads +sin(pitch)).
function gravity(roll, pitch) {
	gx = -sin(roll)
	gy = sin(pitch) * cos(roll)
	gz = cos(pitch) * cos(roll)
}

# The hand that holds a machine trembles a little at about 8 Hz.
function tremor(t, a) {
	ax += a * sin(2 * PI * 8.3 * t)
	ay += a * sin(2 * PI * 7.1 * t + 1)
	az += a * sin(2 * PI * 9.7 * t + 2)
}

function setup_situation() {
	HEIGHT = 0.75                          # a desk, in m
	FALL = sqrt(2 * HEIGHT / 9.81)         # 0.391 s
	if (situation == "desk") {
		duration = 20; event = 0; label = "must-not-park"
		what = "at rest on a desk, nobody touching it"
		physics = "gravity only (0, 0, 1 g) plus the sensor's noise"
	} else if (situation == "typing") {
		duration = 15; event = 2; label = "must-not-park"
		what = "someone types on the built-in keyboard from t = 2 s, 4 to 8 keys a second"
		physics = "each key a knock of 0.015-0.04 g on z (a third of it on x and y), ringing at 25 Hz and gone in about 15 ms; the figures are an estimate for a sensor on the main board under the keyboard, not a measurement"
		n = 0
		for (k = 2; k < duration; k += 0.125 + rnd() * 0.125) {
			key_t[++n] = k
			key_a[n] = 0.015 + rnd() * 0.025
		}
		keys = n
	} else if (situation == "lid-close") {
		duration = 8; event = 3; label = "must-not-park"
		what = "the lid is closed by hand at t = 3 s, the base resting on the desk"
		physics = "the base rocks by 0.02 g as the lid swings down over 0.4 s, then the lid's thump: a knock of 0.12 g on z (0.04 g on y) ringing at 30 Hz, time constant 20 ms"
	} else if (situation == "walking") {
		duration = 15; event = 2; label = "must-not-park"
		what = "held level in both hands, the carrier starts walking at t = 2 s"
		physics = "steps at 1.8 Hz: vertical 0.12 g at the step rate and 0.04 g at twice it, fore-aft 0.05 g, sideways sway 0.05 g at half the step rate, a hand tremor of 0.01 g at about 8 Hz, walking fades in over 0.5 s"
	} else if (situation == "bump") {
		duration = 6; event = 2; label = "must-park"
		what = "the desk is bumped hard (a knee, a chair) at t = 2 s"
		physics = "a shove of 0.6 g along x for 30 ms and a recoil of 0.35 g for 40 ms, a knock of 0.4 g on z at 40 Hz (10 ms), then the machine rocks on its feet: 0.1 g at 12 Hz on every axis, time constant 60 ms"
	} else if (situation == "lift-put-down") {
		duration = 8; event = 2; label = "must-park"
		what = "lifted 10 cm off the desk at t = 2 s, held for 2 s with a slight tilt, put down at t = 4.5 s"
		physics = "lift: +0.3 g on z for 0.25 s then -0.3 g for 0.25 s; held: tilted 8 degrees back over 0.5 s, hand tremor 0.02 g; put down: -0.25 g for 0.25 s, then the contact, a knock of 0.3 g on z ringing at 30 Hz (15 ms)"
	} else if (situation == "slide-off") {
		duration = 8; event = 2.45; label = "must-park"
		what = "pushed along the desk at t = 2 s, it slides off the edge and tips over it, falls from " HEIGHT " m from t = 2.45 s and hits the floor " sprintf("%.3f", FALL) " s later"
		physics = "push 0.4 g along x for 0.15 s, kinetic friction -0.3 g for 0.15 s, tipping over the edge 2.30-2.45 s (rolling 40 degrees as the desk's support fades to nothing), free fall for t = sqrt(2h/g) = " sprintf("%.3f", FALL) " s with 0.1 g of centripetal reading from a slow tumble, the floor: 3 g on z (clamped by the sensor), ringing at 20 Hz (30 ms), at rest 10 degrees rolled"
	} else if (situation == "drop-flat") {
		duration = 6; event = 2; label = "must-park"
		what = "held flat in both hands, dropped at t = 2 s from " HEIGHT " m without turning; the floor " sprintf("%.3f", FALL) " s later"
		physics = "hand tremor 0.02 g; release: the weight goes from 1 g to 0 over 20 ms on z only, so x and y hardly change; free fall for t = sqrt(2h/g) = " sprintf("%.3f", FALL) " s; the floor: 3 g on z (clamped by the sensor), ringing at 20 Hz (30 ms)"
	} else if (situation ~ /^tilt-(left|right|front|back)$/) {
		duration = 6; event = 2; label = "must-not-park"
		edge = substr(situation, 6)
		what = "the " edge " edge is lifted by 20 degrees over 0.8 s at t = 2 s, held 1.5 s, lowered over 0.8 s"
		physics = "gravity turning with the machine (raised-cosine ramps), no shock"
	} else {
		print "synth.awk: unknown situation '" situation "'" > "/dev/stderr"
		exit 2
	}
}

# The acceleration (ax, ay, az) in g at time t, noise aside.
function motion(t,    k, f, s, roll, pitch, tf, tl) {
	ax = 0; ay = 0; az = 1
	if (situation == "typing") {
		for (k = 1; k <= keys && key_t[k] <= t; k++) {
			if (t - key_t[k] > 0.2)
				continue
			f = knock(t, key_t[k], key_a[k], 0.015, 25)
			az += f; ax += f / 3; ay -= f / 3
		}
	} else if (situation == "lid-close") {
		ay += pulse(t, 2.6, 0.4, 0.02)
		az += knock(t, 3, 0.12, 0.02, 30)
		ay += knock(t, 3, 0.04, 0.02, 30)
	} else if (situation == "walking") {
		s = ramp(t, 2, 0.5)
		az += s * (0.12 * sin(2 * PI * 1.8 * (t - 2)) + 0.04 * sin(4 * PI * 1.8 * (t - 2) + 0.5))
		ay += s * 0.05 * sin(2 * PI * 1.8 * (t - 2) + 1)
		ax += s * 0.05 * sin(PI * 1.8 * (t - 2))
		tremor(t, 0.01)
	} else if (situation == "bump") {
		ax += pulse(t, 2, 0.03, 0.6) - pulse(t, 2.03, 0.04, 0.35)
		az += knock(t, 2, 0.4, 0.01, 40)
		ax += knock(t, 2.03, 0.1, 0.06, 12)
		ay += knock(t, 2.03, 0.1, 0.06, 12.5)
		az += knock(t, 2.03, 0.1, 0.06, 11)
	} else if (situation == "lift-put-down") {
		pitch = 8 * PI / 180 * (ramp(t, 2.5, 0.5) - ramp(t, 4, 0.5))
		gravity(0, pitch); ax = gx; ay = gy; az = gz
		az += pulse(t, 2, 0.25, 0.3) - pulse(t, 2.25, 0.25, 0.3)
		az += -pulse(t, 4.5, 0.25, 0.25) + knock(t, 4.75, 0.3, 0.015, 30)
		if (t >= 2 && t < 4.75)
			tremor(t, 0.02)
	} else if (situation == "slide-off") {
		tf = 2.45; tl = tf + FALL
		if (t < 2.3) {
			ax += pulse(t, 2, 0.15, 0.4) - (t >= 2.15 ? 0.3 : 0)
		} else if (t < tf) {
			s = (t - 2.3) / 0.15                  # 0..1 through the tipping
			roll = -40 * PI / 180 * s
			gravity(roll, 0)
			ax = gx * (1 - s); ay = gy * (1 - s); az = gz * (1 - s)
		} else if (t < tl) {
			ax = 0.1 * sin(3 * (t - tf)); ay = 0.02; az = 0.1 * cos(3 * (t - tf))
		} else {
			gravity(10 * PI / 180, 0); ax = gx; ay = gy; az = gz
			az += knock(t, tl, 3, 0.03, 20)
			ax += knock(t, tl, 1, 0.03, 23)
		}
	} else if (situation == "drop-flat") {
		tl = 2 + FALL
		if (t < 2) {
			tremor(t, 0.02)
		} else if (t < tl) {
			az = 1 - ramp(t, 2, 0.02)
		} else {
			az += knock(t, tl, 3, 0.03, 20)
			ax += knock(t, tl, 0.3, 0.03, 23)
		}
	} else if (edge != "") {
		s = 20 * PI / 180 * (ramp(t, 2, 0.8) - ramp(t, 4.3, 0.8))
		if (edge == "left") gravity(s, 0)
		else if (edge == "right") gravity(-s, 0)
		else if (edge == "back") gravity(0, s)
		else gravity(0, -s)
		ax = gx; ay = gy; az = gz
	}
}

BEGIN {
	PI = atan2(0, -1)
	axes = 3
	if (sensor == "ams") {
		# drivers/macintosh/ams: "current" prints s8 values; the input
		# device's range says about 50 counts a g; its joystick polls
		# at 40 Hz (ams-input.c), sysfs reads the chip on each read.
		rate = 40; cpg = 50; lo = -128; hi = 127; noise = 0.4
		off[1] = 2; off[2] = -1; off[3] = -1
		format = "current: \"X Y Z\", s8"
	} else if (sensor == "applesmc") {
		# drivers/hwmon/applesmc.c: "position" prints s16; about 256
		# counts a g (its input device's range); the SMC is read on
		# each read, hdapsd polls it at 50 Hz.
		rate = 50; cpg = 256; lo = -32768; hi = 32767; noise = 1.2
		off[1] = -5; off[2] = 3; off[3] = -5
		format = "position: \"(X,Y,Z)\", s16"
	} else if (sensor == "lis3lv02d") {
		# drivers/misc/lis3lv02d (hp_accel): "position" prints mg;
		# the LIS3LV02DL's default data rate is 40 Hz, its range 2 g,
		# about 1 mg a count at 12 bits.
		rate = 40; cpg = 1000; lo = -2000; hi = 2000; noise = 4
		off[1] = -12; off[2] = 8; off[3] = 15
		format = "position: \"(X,Y,Z)\", mg"
	} else if (sensor == "hdaps") {
		# drivers/platform/x86/hdaps.c: "position" prints "(X,Y)", the
		# embedded controller's 10-bit reading of a two-axis ADXL320
		# (about 500 at rest); 174 mV a g over 3.3 V makes about 54
		# counts a g, an estimate; sampled at 50 Hz ("sampling_rate").
		rate = 50; cpg = 54; lo = 0; hi = 1023; noise = 0.5; axes = 2
		off[1] = 503; off[2] = 485
		format = "position: \"(X,Y)\", no z"
	} else {
		print "synth.awk: unknown sensor '" sensor "'" > "/dev/stderr"
		exit 2
	}
	seed = 1
	name = sensor "/" situation
	for (i = 1; i <= length(name); i++)
		seed = (seed * 31 + index("abcdefghijklmnopqrstuvwxyz-/", substr(name, i, 1))) % 2147483647
	setup_situation()

	print "# hwsight motion trace 1"
	print "# what: " what
	print "# source: synthesised by tests/traces/motion/synth.awk (sensor=" sensor ", situation=" situation "); no recording"
	print "# physics: " physics
	print "# noise: normal, " noise " counts rms, plus the rounding to whole counts"
	print "# sensor: " sensor " (" format ")"
	print "# axes: " (axes == 3 ? "x y z" : "x y")
	print "# counts-per-g: " cpg
	print "# rate: " rate
	print "# event: " sprintf("%.3f", event)
	print "# label: " label
	# A lift and a flat drop move the machine along z only: a sensor
	# without z sees nothing until the floor rings it sideways.
	if (axes == 2 && (situation == "lift-put-down" || situation == "drop-flat"))
		print "# out-of-reach: the motion that matters is along z, which this sensor does not have"
	print "# licence: LGPL-2.1-or-later, as hwsight"
	print "# t " (axes == 3 ? "x y z" : "x y")
	n = int(duration * rate + 0.5)
	for (i = 0; i < n; i++) {
		t = i / rate
		motion(t)
		v[1] = ax; v[2] = ay; v[3] = az
		line = sprintf("%.3f", t)
		for (a = 1; a <= axes; a++)
			line = line " " clamp(round(v[a] * cpg + off[a] + gauss() * noise), lo, hi)
		print line
	}
}
