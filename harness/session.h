/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one open /dev/cqpool holds: pools and reservations, named by ids
 * that mean something only to that file descriptor.
 */
#ifndef CQH_SESSION_H
#define CQH_SESSION_H

struct cqh_session;
struct ib_device;

int cqh_chardev_init(void);
void cqh_chardev_exit(void);
void cqh_sessions_device_removed(struct ib_device *ibdev);

struct cqh_session *cqh_session_create(void);
void cqh_session_destroy(struct cqh_session *s);

int cqh_session_pool_create(struct cqh_session *s, void *arg);
int cqh_session_pool_destroy(struct cqh_session *s, void *arg);
int cqh_session_cq_get(struct cqh_session *s, void *arg);
int cqh_session_cq_put(struct cqh_session *s, void *arg);
int cqh_session_events_watch(struct cqh_session *s, void *arg);
int cqh_session_events_unwatch(struct cqh_session *s, void *arg);
int cqh_session_events_read(struct cqh_session *s, void *arg);
int cqh_session_list(struct cqh_session *s, void *arg);

struct cqpool_conn_info;

void cqh_session_conns(struct cqh_session *s,
		       void (*fn)(void *ctx,
				  const struct cqpool_conn_info *info),
		       void *ctx);
int cqh_session_conn_create(struct cqh_session *s, void *arg);
int cqh_session_conn_destroy(struct cqh_session *s, void *arg);
int cqh_session_traffic(struct cqh_session *s, void *arg);
int cqh_session_trigger(struct cqh_session *s, void *arg);
int cqh_bench_run(struct cqh_session *s, void *arg);

#endif /* CQH_SESSION_H */
