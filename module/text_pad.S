/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make bench only (scripts/bench.sh builds cqpool.ko with
 * CQPOOL_TEXT_PAD=64, 128 and 192): that many bytes of int3, linked first,
 * so that every function of the module lands that much further into its
 * pages.  Under QEMU TCG what a call costs depends on where its code
 * lands, so the same code at several offsets shows how much of a
 * measured difference is placement, and the get/put targets are read
 * over all of them.
 */
	.text
	.skip CQPOOL_TEXT_PAD, 0xcc
