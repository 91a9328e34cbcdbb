/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one open /dev/cqpool holds: pools and reservations, named by ids
 * that mean something only to that file descriptor.
 */
#ifndef CQPOOL_SESSION_H
#define CQPOOL_SESSION_H

struct cqpool_session;
struct ib_device;

int cqpool_chardev_init(void);
void cqpool_chardev_exit(void);
void cqpool_sessions_device_removed(struct ib_device *ibdev);

struct cqpool_session *cqpool_session_create(void);
void cqpool_session_destroy(struct cqpool_session *s);

int cqpool_session_pool_create(struct cqpool_session *s, void *arg);
int cqpool_session_pool_destroy(struct cqpool_session *s, void *arg);
int cqpool_session_cq_get(struct cqpool_session *s, void *arg);
int cqpool_session_cq_put(struct cqpool_session *s, void *arg);
int cqpool_session_events_watch(struct cqpool_session *s, void *arg);
int cqpool_session_events_unwatch(struct cqpool_session *s, void *arg);
int cqpool_session_events_read(struct cqpool_session *s, void *arg);
int cqpool_session_list(struct cqpool_session *s, void *arg);

struct cqpool_conn_info;

void cqpool_session_conns(struct cqpool_session *s,
			  void (*fn)(void *ctx,
				     const struct cqpool_conn_info *info),
			  void *ctx);
int cqpool_session_conn_create(struct cqpool_session *s, void *arg);
int cqpool_session_conn_destroy(struct cqpool_session *s, void *arg);
int cqpool_session_traffic(struct cqpool_session *s, void *arg);
int cqpool_session_trigger(struct cqpool_session *s, void *arg);
int cqpool_bench_run(struct cqpool_session *s, void *arg);

#endif /* CQPOOL_SESSION_H */
