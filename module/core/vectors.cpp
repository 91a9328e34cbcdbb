// SPDX-License-Identifier: GPL-2.0
/*
 * Completion vectors.  See vectors.h.
 */
#include "vectors.h"

extern "C" unsigned int cqp_nvec(unsigned int num_comp_vectors,
				 unsigned int online_cpus)
{
	unsigned int n = num_comp_vectors < online_cpus ? num_comp_vectors :
							  online_cpus;

	return n ? n : 1;
}
