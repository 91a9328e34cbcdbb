// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the pool ledger.  The input is a pool configuration
 * followed by a stream of operations (reservations through cqp_pool_get(),
 * its growths carried out with driver rounding and injected failures,
 * release, reap with an advancing clock, take_idle, the other calls the contract allows, and bad
 * input); model::Rig runs each against the ledger and the reference model
 * and compares everything after every call, cqp_pool_check() included.
 * Any mismatch aborts with the step that broke.
 *
 *   input = cfg[6] op*      op = code arg...   (missing bytes read as 0)
 */
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "pool_model.h"
#include "test_alloc.h"

namespace {

class Bytes {
public:
	Bytes(const uint8_t *data, size_t size) : data_(data), size_(size)
	{
	}

	bool empty() const
	{
		return pos_ >= size_;
	}

	uint8_t u8()
	{
		return pos_ < size_ ? data_[pos_++] : 0;
	}

	uint32_t u16()
	{
		uint32_t lo = u8();

		return lo | uint32_t(u8()) << 8;
	}

	uint32_t u32()
	{
		uint32_t lo = u16();

		return lo | u16() << 16;
	}

private:
	const uint8_t *data_;
	size_t size_;
	size_t pos_ = 0;
};

/* At most this many CQs: the glue's allocations fail beyond it. */
constexpr size_t MAX_LIVE = 300;

const cqp_u32 max_cqes[] = { 1,	 2,    3,     7,     16,      63,
			     100, 256, 1000, 4095, 65536, 1u << 22 };

[[noreturn]] void die(const char *what, const std::string &detail)
{
	std::fprintf(stderr, "pool_fuzz: %s: %s\n", what, detail.c_str());
	std::abort();
}

/* Creation under memory failure leaves nothing behind. */
void fuzz_create_failure(uint8_t which)
{
	TestAlloc fa;
	cqp_alloc a = fa.iface();
	cqp_pool_params p = { 1u + which % 4, 64, 0, 0, 0, 0 };

	fa.fail_at = 1 + (which >> 7);
	if (cqp_pool_create(&a, &p) || fa.live)
		die("create", "failed allocation leaked or was ignored");
}

cqp_u32 decode_nr(Bytes &in, cqp_u32 largest)
{
	uint8_t mode = in.u8();

	switch (mode & 3) {
	case 0:
		return 1 + in.u32() % largest;
	case 1:
		return largest - in.u8() % (largest < 8 ? largest : 8);
	default:
		return 1 + in.u8() % (largest < 32 ? largest : 32);
	}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Bytes in(data, size);
	uint8_t c[6];

	for (uint8_t &b : c)
		b = in.u8();
	fuzz_create_failure(c[5]);

	cqp_pool_params p = {};

	p.nvec = c[0] == 0xff ? 0 : 1 + c[0] % 4;
	p.max_cqe = c[1] == 0xff ? 0 : max_cqes[c[1] % 12];
	if (c[2] & 0x80)	/* a fixed size, or one too big (bad params) */
		p.cq_size = (c[2] & 0x40) ? p.max_cqe + 1 :
					    1 + (c[2] & 0x3f) % (p.max_cqe ? p.max_cqe : 1);
	p.max_cqs = (c[3] & 3) ? 0 : (c[3] >> 2) % 40;
	p.flags = c[4] & (CQP_POOL_RESIZE | CQP_POOL_NO_SHRINK);
	p.keep_idle = (c[4] >> 2) % 4;

	model::Round round = model::Round((c[4] >> 4) % 3);
	model::Rig rig(p, round, MAX_LIVE);

	if (!rig.ok())
		die("create", rig.error());
	if (!rig.created())
		return 0;

	const cqp_u32 largest = rig.model().largest();

	while (!in.empty() && rig.ok()) {
		uint8_t op = in.u8();

		switch (op % 16) {
		case 0:
		case 1:
		case 2:
		case 3:
		case 4: {
			cqp_u32 vec = in.u8() % p.nvec;
			cqp_u32 nr = decode_nr(in, largest);
			cqp_u64 fail = in.u8();

			rig.reserve(vec, nr, fail);
			break;
		}
		case 5:
		case 6:
		case 7:
			rig.release(in.u8());
			break;
		case 8:
			rig.advance(in.u8());
			rig.reap(in.u8());
			break;
		case 9:
			rig.advance(cqp_u64(in.u16()) << (in.u8() % 24));
			break;
		case 10:
			rig.take_idle();
			break;
		case 11: {
			uint8_t kind = in.u8();
			uint32_t x = in.u32();

			switch (kind % 4) {
			case 0:
				rig.bad_reserve(kind >> 2, x);
				break;
			case 1:
				rig.bad_release(kind >> 2, x);
				break;
			case 2:
				rig.bad_add(kind >> 2, x);
				break;
			default:
				rig.bad_resized(kind >> 2, x);
				break;
			}
			break;
		}
		case 12:
			rig.destroy_refused();
			break;
		case 13: {
			cqp_u32 vec = in.u8();

			rig.add_any(vec, in.u32());
			break;
		}
		case 14: {
			uint8_t which = in.u8();

			rig.resize_any(which, in.u32());
			break;
		}
		default:
			rig.resize_failed_any(in.u8());
			break;
		}
	}
	if (!rig.ok())
		die("mismatch", rig.error());
	if (!rig.teardown())
		die("teardown", rig.error());
	return 0;
}
