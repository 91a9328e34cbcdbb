/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Freestanding types for the cqpool core.
 *
 * The core is built three ways (cqpool.ko, the KUnit module, userspace
 * tests) and includes no header it does not own, so it takes its fixed
 * width types from the compiler rather than from the kernel or libc.
 */
#ifndef CQPOOL_CORE_TYPES_H
#define CQPOOL_CORE_TYPES_H

/* The same types as the kernel's u32 and u64, so pointers to them mix. */
typedef __SIZE_TYPE__ cqp_size_t;
typedef unsigned int cqp_u32;
typedef unsigned long long cqp_u64;

/*
 * Error codes returned by the core.  They carry the values of the Linux
 * errno constants they are named after, so the glue returns them as they
 * are; the glue checks the equality at build time.
 */
enum cqp_err {
	CQP_OK = 0,
	CQP_ENOMEM = -12,
	CQP_ENODEV = -19,
	CQP_EINVAL = -22,
	CQP_ENOSPC = -28,
	CQP_ERANGE = -34,
	CQP_ELOOP = -40,
};

/*
 * Memory for the core comes from whoever calls it.  @zalloc returns zeroed
 * memory or NULL; it is called only where the caller's context allows
 * allocation, which the core documents per function.
 */
struct cqp_alloc {
	void *(*zalloc)(void *ctx, cqp_size_t size);
	void (*free)(void *ctx, void *ptr);
	void *ctx;
};

#endif /* CQPOOL_CORE_TYPES_H */
