// SPDX-License-Identifier: MIT
/*
 * _engine.c - hixl._hixl.Engine: one struct hixl_engine, its lock, and its
 * calls but the asynchronous transfers (_request.c).
 */
#include "_hixl.h"

/* ---- Engine -------------------------------------------------------------- */


/* Take the engine for one call (GIL held before and after): 0, or -ESHUTDOWN
 * when it was finalized.  Waits for a running finalize without the GIL. */
int eng_enter(EngineObject *self)
{
	if (pthread_rwlock_tryrdlock(&self->lock)) {
		Py_BEGIN_ALLOW_THREADS
		pthread_rwlock_rdlock(&self->lock);
		Py_END_ALLOW_THREADS
	}
	if (!self->eng) {
		pthread_rwlock_unlock(&self->lock);
		return -ESHUTDOWN;
	}
	return 0;
}

void eng_leave(EngineObject *self)
{
	pthread_rwlock_unlock(&self->lock);
}

/* finalize (GIL held), then drop the registrations' buffers */
static void eng_finalize(EngineObject *self)
{
	struct hixl_engine *eng;

	Py_BEGIN_ALLOW_THREADS
	pthread_rwlock_wrlock(&self->lock);
	eng = self->eng;
	self->eng = NULL;
	hixl_engine_finalize(eng);
	pthread_rwlock_unlock(&self->lock);
	Py_END_ALLOW_THREADS
	if (self->bufs)
		PyDict_Clear(self->bufs);
}

static void engine_dealloc(EngineObject *self)
{
	if (self->eng)
		eng_finalize(self);
	Py_CLEAR(self->bufs);
	pthread_rwlock_destroy(&self->lock);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* engine_init(local_engine: str, options: sequence of (str, str)) -> (err, Engine | None) */
PyObject *mod_engine_init(PyObject *mod, PyObject *args)
{
	PyObject *name_o, *opts_o, *opts = NULL, *ret = NULL;
	struct hixl_option *opts_c = NULL;
	struct hixl_engine *eng = NULL;
	pthread_rwlockattr_t attr;
	EngineObject *self;
	const char *name;
	Py_ssize_t i, n;
	int err;

	if (!PyArg_ParseTuple(args, "OO:engine_init", &name_o, &opts_o))
		return NULL;
	err = utf8(name_o, &name, NULL);
	if (err == -1)
		return NULL;
	if (err)
		return Py_BuildValue("(iO)", err, Py_None);
	opts = PySequence_Tuple(opts_o);	/* items stay alive without the GIL */
	if (!opts)
		return NULL;
	n = PyTuple_GET_SIZE(opts);
	opts_c = PyMem_Calloc(n ? n : 1, sizeof(*opts_c));
	if (!opts_c) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < n; i++) {
		PyObject *kv = PyTuple_GET_ITEM(opts, i);

		if (!PyTuple_Check(kv) || PyTuple_GET_SIZE(kv) != 2) {
			PyErr_SetString(PyExc_TypeError, "options must be (str, str) pairs");
			goto out;
		}
		err = utf8(PyTuple_GET_ITEM(kv, 0), &opts_c[i].key, NULL);
		if (!err)
			err = utf8(PyTuple_GET_ITEM(kv, 1), &opts_c[i].value, NULL);
		if (err == -1)
			goto out;
		if (err) {
			ret = Py_BuildValue("(iO)", err, Py_None);
			goto out;
		}
	}
	Py_BEGIN_ALLOW_THREADS
	err = hixl_engine_init(&eng, name, opts_c, (size_t)n);
	Py_END_ALLOW_THREADS
	if (err) {
		ret = Py_BuildValue("(iO)", err, Py_None);
		goto out;
	}
	self = PyObject_New(EngineObject, &EngineType);
	if (!self) {
		hixl_engine_finalize(eng);
		goto out;
	}
	self->eng = NULL;
	/* writers first: callers in a loop cannot starve finalize; no thread
	 * ever takes the read lock twice (Request dealloc only tries it) */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&self->lock, &attr);	/* cannot fail on Linux */
	pthread_rwlockattr_destroy(&attr);
	self->bufs = PyDict_New();
	if (!self->bufs) {
		hixl_engine_finalize(eng);
		Py_DECREF(self);
		goto out;
	}
	self->eng = eng;
	ret = Py_BuildValue("(iN)", 0, (PyObject *)self);
out:
	PyMem_Free(opts_c);
	Py_XDECREF(opts);
	return ret;
}

static PyObject *engine_finalize(EngineObject *self, PyObject *unused)
{
	eng_finalize(self);
	Py_RETURN_NONE;
}

static PyObject *engine_finalized(EngineObject *self, void *unused)
{
	return PyBool_FromLong(self->eng == NULL);
}

/* register_mem(addr, len, flags, type, dmabuf_fd, dmabuf_offset, buffer|None) -> (err, handle) */
static PyObject *engine_register_mem(EngineObject *self, PyObject *args)
{
	struct hixl_mem_desc d = { 0 };
	PyObject *a, *l, *off, *buf, *key;
	uint64_t handle = 0;
	unsigned int flags;
	int type, fd, err;

	if (!PyArg_ParseTuple(args, "OOIiiOO:register_mem", &a, &l, &flags, &type, &fd, &off, &buf))
		return NULL;
	if (addr_of(a, &d.addr) || addr_of(l, &d.len) || addr_of(off, &d.dmabuf_offset))
		return NULL;
	if (buf != Py_None && !PyObject_TypeCheck(buf, &BufferType)) {
		PyErr_SetString(PyExc_TypeError, "buffer must be a hixl._hixl.Buffer or None");
		return NULL;
	}
	d.flags = flags;
	d.dmabuf_fd = fd;
	err = eng_enter(self);
	if (err)
		return Py_BuildValue("(iK)", err, 0ULL);
	Py_BEGIN_ALLOW_THREADS
	err = hixl_register_mem(self->eng, &d, (enum hixl_mem_type)type, &handle);
	Py_END_ALLOW_THREADS
	eng_leave(self);
	if (!err && buf != Py_None) {
		key = PyLong_FromUnsignedLongLong(handle);
		if (!key || PyDict_SetItem(self->bufs, key, buf)) {
			/* keep no registration whose memory we cannot hold */
			Py_XDECREF(key);
			if (!eng_enter(self)) {
				hixl_deregister_mem(self->eng, handle);
				eng_leave(self);
			}
			return NULL;
		}
		Py_DECREF(key);
	}
	return Py_BuildValue("(iK)", err, (unsigned long long)handle);
}

/* deregister_mem(handle) -> err; drops the registration's Buffer on success */
static PyObject *engine_deregister_mem(EngineObject *self, PyObject *args)
{
	unsigned long long handle;
	PyObject *key;
	int err;

	if (!PyArg_ParseTuple(args, "K:deregister_mem", &handle))
		return NULL;
	err = eng_enter(self);
	if (err)
		return PyLong_FromLong(err);
	Py_BEGIN_ALLOW_THREADS
	err = hixl_deregister_mem(self->eng, handle);
	Py_END_ALLOW_THREADS
	eng_leave(self);
	if (!err) {
		key = PyLong_FromUnsignedLongLong(handle);
		if (!key)
			return NULL;
		if (PyDict_DelItem(self->bufs, key))
			PyErr_Clear();	/* registered from an int address */
		Py_DECREF(key);
	}
	return PyLong_FromLong(err);
}

/* mem_info(handle) -> (err, (addr, len, type, requested, source, flags) or None) */
static PyObject *engine_mem_info(EngineObject *self, PyObject *args)
{
	unsigned long long handle;
	struct hixl_mem_info mi;
	int err;

	if (!PyArg_ParseTuple(args, "K:mem_info", &handle))
		return NULL;
	err = eng_enter(self);
	if (err)
		return Py_BuildValue("(iO)", err, Py_None);
	err = hixl_mem_get_info(self->eng, handle, &mi);
	eng_leave(self);
	if (err)
		return Py_BuildValue("(iO)", err, Py_None);
	return Py_BuildValue("(i(KKIIII))", 0, (unsigned long long)mi.addr,
			     (unsigned long long)mi.len, mi.type, mi.requested, mi.source, mi.flags);
}

/* the calls (eng, name, timeout_ms) -> int: connect, connect_async, ... */
typedef int (*name_timeout_fn)(struct hixl_engine *, const char *, int);

static PyObject *name_timeout_call(EngineObject *self, PyObject *args, name_timeout_fn fn,
				   const char *fmt)
{
	PyObject *name_o;
	const char *name;
	int timeout, err;

	if (!PyArg_ParseTuple(args, fmt, &name_o, &timeout))
		return NULL;
	err = utf8(name_o, &name, NULL);
	if (err == -1)
		return NULL;
	if (err)
		return PyLong_FromLong(err);
	err = eng_enter(self);
	if (err)
		return PyLong_FromLong(err);
	Py_BEGIN_ALLOW_THREADS
	err = fn(self->eng, name, timeout);
	Py_END_ALLOW_THREADS
	eng_leave(self);
	return PyLong_FromLong(err);
}

static PyObject *engine_connect(EngineObject *self, PyObject *args)
{
	return name_timeout_call(self, args, hixl_connect, "Oi:connect");
}

static PyObject *engine_connect_async(EngineObject *self, PyObject *args)
{
	return name_timeout_call(self, args, hixl_connect_async, "Oi:connect_async");
}

static PyObject *engine_disconnect(EngineObject *self, PyObject *args)
{
	return name_timeout_call(self, args, hixl_disconnect, "Oi:disconnect");
}

static PyObject *engine_disconnect_async(EngineObject *self, PyObject *args)
{
	return name_timeout_call(self, args, hixl_disconnect_async, "Oi:disconnect_async");
}

/* get_connect_status(name) -> (err, status) */
static PyObject *engine_get_connect_status(EngineObject *self, PyObject *name_o)
{
	enum hixl_connect_status st = HIXL_NOT_CONNECT;
	const char *name;
	int err;

	err = utf8(name_o, &name, NULL);
	if (err == -1)
		return NULL;
	if (!err)
		err = eng_enter(self);
	if (err)
		return Py_BuildValue("(ii)", err, (int)st);
	err = hixl_get_connect_status(self->eng, name, &st);
	eng_leave(self);
	return Py_BuildValue("(ii)", err, (int)st);
}

/* get_all_connect_status() -> (err, [(name, status, err), ...]) */
static PyObject *engine_get_all_connect_status(EngineObject *self, PyObject *unused)
{
	struct hixl_connect_entry *out = NULL;
	PyObject *list, *item;
	int n, cap = 0, err, i;

	err = eng_enter(self);
	if (err)
		return Py_BuildValue("(i[])", err);
	for (;;) {
		n = hixl_get_all_connect_status(self->eng, out, (size_t)cap);
		if (n < 0 || n <= cap)
			break;
		cap = n + 8;
		PyMem_Free(out);
		out = PyMem_Calloc((size_t)cap, sizeof(*out));
		if (!out) {
			eng_leave(self);
			return PyErr_NoMemory();
		}
	}
	eng_leave(self);
	if (n < 0) {
		PyMem_Free(out);
		return Py_BuildValue("(i[])", n);
	}
	list = PyList_New(n);
	for (i = 0; list && i < n; i++) {
		out[i].remote_engine[HIXL_ENGINE_NAME_MAX - 1] = '\0';
		item = Py_BuildValue("(sii)", out[i].remote_engine, (int)out[i].status,
				     (int)out[i].err);
		if (!item)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, i, item);
	}
	PyMem_Free(out);
	return list ? Py_BuildValue("(iN)", 0, list) : NULL;
}

/* transfer_sync(name, op, descs, timeout_ms) -> (err, failed_index) */
static PyObject *engine_transfer_sync(EngineObject *self, PyObject *args)
{
	PyObject *name_o, *descs_o;
	OpDescsObject *d;
	size_t failed = 0;
	const char *name;
	int op, timeout, err;

	if (!PyArg_ParseTuple(args, "OiOi:transfer_sync", &name_o, &op, &descs_o, &timeout))
		return NULL;
	err = utf8(name_o, &name, NULL);
	if (err == -1)
		return NULL;
	if (err)
		return Py_BuildValue("(in)", err, (Py_ssize_t)0);
	d = descs_from(descs_o);
	if (!d)
		return NULL;
	failed = (size_t)d->n;
	err = eng_enter(self);
	if (!err) {
		Py_BEGIN_ALLOW_THREADS
		err = hixl_transfer_sync(self->eng, name, (enum hixl_op)op, d->d, (size_t)d->n,
					 timeout, &failed);
		Py_END_ALLOW_THREADS
		eng_leave(self);
	}
	Py_DECREF(d);
	return Py_BuildValue("(in)", err, (Py_ssize_t)failed);
}

/* ---- notifications ------------------------------------------------------- */

/* send_notify(name, notify_name: bytes, msg: bytes, timeout_ms) -> err */
static PyObject *engine_send_notify(EngineObject *self, PyObject *args)
{
	const char *name, *nname, *msg;
	Py_ssize_t nlen, mlen;
	PyObject *name_o;
	int timeout, err;

	if (!PyArg_ParseTuple(args, "Oy#y#i:send_notify", &name_o, &nname, &nlen, &msg, &mlen,
			      &timeout))
		return NULL;
	err = utf8(name_o, &name, NULL);
	if (err == -1)
		return NULL;
	if (!err && strlen(nname) != (size_t)nlen)
		err = -EINVAL;	/* a NUL inside the name */
	if (!err)
		err = eng_enter(self);
	if (err)
		return PyLong_FromLong(err);
	Py_BEGIN_ALLOW_THREADS
	err = hixl_send_notify(self->eng, name, nname, msg, (size_t)mlen, timeout);
	Py_END_ALLOW_THREADS
	eng_leave(self);
	return PyLong_FromLong(err);
}

#define NOTIFY_BATCH 64

/* get_notifies() -> (err, [(from, name: bytes, msg: bytes), ...], dropped) */
static PyObject *engine_get_notifies(EngineObject *self, PyObject *unused)
{
	char from[HIXL_ENGINE_NAME_MAX];
	uint64_t dropped = 0, d;
	struct hixl_notify *out;
	PyObject *list, *item;
	size_t count, i;
	int err;

	list = PyList_New(0);
	if (!list)
		return NULL;
	out = PyMem_Malloc(NOTIFY_BATCH * sizeof(*out));
	if (!out) {
		Py_DECREF(list);
		return PyErr_NoMemory();
	}
	do {
		err = eng_enter(self);
		if (err)
			break;
		d = 0;
		err = hixl_get_notifies(self->eng, out, NOTIFY_BATCH, &count, &d);
		eng_leave(self);
		if (err)
			break;
		dropped += d;
		for (i = 0; i < count; i++) {
			struct hixl_notify *nt = &out[i];

			if (hixl_format_engine_name(&nt->from, from, sizeof(from)))
				from[0] = '\0';
			item = Py_BuildValue("(sy#y#)", from, (const char *)nt->name,
					     (Py_ssize_t)(nt->name_len < HIXL_NOTIFY_MAX_NAME ?
							  nt->name_len : HIXL_NOTIFY_MAX_NAME),
					     (const char *)nt->msg,
					     (Py_ssize_t)(nt->msg_len < HIXL_NOTIFY_MAX_MSG ?
							  nt->msg_len : HIXL_NOTIFY_MAX_MSG));
			if (!item || PyList_Append(list, item)) {
				Py_XDECREF(item);
				Py_DECREF(list);
				PyMem_Free(out);
				return NULL;
			}
			Py_DECREF(item);
		}
	} while (count == NOTIFY_BATCH);
	PyMem_Free(out);
	if (err) {
		/* nothing fetched before the error may be lost: return what we have */
		if (PyList_GET_SIZE(list) == 0)
			return Py_BuildValue("(iNK)", err, list, (unsigned long long)dropped);
	}
	return Py_BuildValue("(iNK)", 0, list, (unsigned long long)dropped);
}

static PyObject *engine_device(EngineObject *self, PyObject *unused)
{
	PyObject *r;

	if (eng_enter(self))
		return PyUnicode_FromString("");
	r = PyUnicode_FromString(hixl_engine_device(self->eng));
	eng_leave(self);
	return r;
}

static PyObject *engine_name(EngineObject *self, PyObject *unused)
{
	char buf[HIXL_ENGINE_NAME_MAX];
	int err = eng_enter(self);

	if (!err) {
		err = hixl_engine_name(self->eng, buf, sizeof(buf));
		eng_leave(self);
	}
	return err ? PyUnicode_FromString("") : PyUnicode_FromString(buf);
}

/* event_fd() -> fd or -errno: hixl_engine_event_fd() (owned by the engine) */
static PyObject *engine_event_fd(EngineObject *self, PyObject *unused)
{
	int r = eng_enter(self);

	if (!r) {
		r = hixl_engine_event_fd(self->eng);
		eng_leave(self);
	}
	return PyLong_FromLong(r);
}

static PyObject *engine_async_path(EngineObject *self, PyObject *unused)
{
	int r = eng_enter(self);

	if (!r) {
		r = hixl_engine_async_path(self->eng);
		eng_leave(self);
	}
	return PyLong_FromLong(r);
}

/*
 * A query that fills a caller's array and says how many entries there are:
 * call it with no room, then with room for all (and 4 more) until what
 * came fits (entries may be added meanwhile).  q(self, ctx, buf, n,
 * &total) returns the count written or a negative errno.  Returns that,
 * *bufp the array (PyMem_Free() it; NULL when empty); -ENOMEM with a
 * Python MemoryError set.
 */
typedef int (*array_query)(EngineObject *self, const void *ctx, void *buf, uint32_t n,
			   uint32_t *total);

static int query_array(EngineObject *self, array_query q, const void *ctx, size_t elem,
		       void **bufp)
{
	uint32_t total = 0, n = 0;
	void *buf = NULL;
	int err;

	for (;;) {
		err = eng_enter(self);
		if (err)
			break;
		err = q(self, ctx, buf, n, &total);
		eng_leave(self);
		if (err < 0 || total <= n)
			break;
		PyMem_Free(buf);
		n = total + 4;
		buf = PyMem_Malloc((size_t)n * elem);
		if (!buf) {
			PyErr_NoMemory();
			return -ENOMEM;
		}
	}
	*bufp = buf;
	return err;
}

static int link_stats_q(EngineObject *self, const void *ctx, void *buf, uint32_t n,
			uint32_t *total)
{
	return hixl_engine_link_stats(self->eng, buf, n, total);
}

/*
 * link_stats() -> (err, [(peer, state, flags, err, {counter: value})]):
 * hixl_engine_link_stats(), every link of the engine with its counters
 * (struct hixl_xfer_stats by field name, local_bytes/local_ops included).
 */
static PyObject *engine_link_stats(EngineObject *self, PyObject *unused)
{
	struct hixl_link_stat *buf = NULL;
	PyObject *list;
	int err, i;

	err = query_array(self, link_stats_q, NULL, sizeof(*buf), (void **)&buf);
	if (err == -ENOMEM && PyErr_Occurred())
		return NULL;
	if (err < 0) {
		PyMem_Free(buf);
		return Py_BuildValue("(i[])", err);
	}
	list = PyList_New(0);
	for (i = 0; list && i < err; i++) {
		const struct hixl_link_stat *ls = &buf[i];
		const struct hixl_xfer_stats *x = &ls->xfer;
		char peer[HIXL_ENGINE_NAME_MAX];
		PyObject *item;

		if (!(ls->flags & HIXL_LINK_STAT_NAMED) ||
		    hixl_format_engine_name(&ls->peer, peer, sizeof(peer)))
			peer[0] = '\0';
		item = Py_BuildValue("(sIIi{sKsKsKsKsKsKsKsKsKsKsKsKsKsKsKsKsKsKsKsK})", peer,
			ls->state, ls->flags, ls->err,
			"read_direct_bytes", (unsigned long long)x->read_direct_bytes,
			"read_direct_ops", (unsigned long long)x->read_direct_ops,
			"read_staged_bytes", (unsigned long long)x->read_staged_bytes,
			"read_staged_ops", (unsigned long long)x->read_staged_ops,
			"write_direct_bytes", (unsigned long long)x->write_direct_bytes,
			"write_direct_ops", (unsigned long long)x->write_direct_ops,
			"write_staged_bytes", (unsigned long long)x->write_staged_bytes,
			"write_staged_ops", (unsigned long long)x->write_staged_ops,
			"errors", (unsigned long long)x->errors,
			"wc_errors", (unsigned long long)x->wc_errors,
			"timeouts", (unsigned long long)x->timeouts,
			"cancels", (unsigned long long)x->cancels,
			"link_resets", (unsigned long long)x->link_resets,
			"connects", (unsigned long long)x->connects,
			"connect_failures", (unsigned long long)x->connect_failures,
			"accepts", (unsigned long long)x->accepts,
			"connect_us_last", (unsigned long long)x->connect_us_last,
			"connect_us_sum", (unsigned long long)x->connect_us_sum,
			"local_bytes", (unsigned long long)x->local_bytes,
			"local_ops", (unsigned long long)x->local_ops);
		if (!item || PyList_Append(list, item)) {
			Py_XDECREF(item);
			Py_CLEAR(list);
			break;
		}
		Py_DECREF(item);
	}
	PyMem_Free(buf);
	return list ? Py_BuildValue("(iN)", 0, list) : NULL;
}

static int peer_regions_q(EngineObject *self, const void *name, void *buf, uint32_t n,
			  uint32_t *total)
{
	return hixl_peer_regions(self->eng, name, buf, n, total);
}

/*
 * peer_regions(name) -> (err, [(addr, len, flags)]): hixl_peer_regions(),
 * the linked peer's registrations, oldest first.
 */
static PyObject *engine_peer_regions(EngineObject *self, PyObject *name_o)
{
	struct hixl_peer_region *buf = NULL;
	const char *name;
	PyObject *list;
	int err, i;

	err = utf8(name_o, &name, NULL);
	if (err == -1)
		return NULL;
	if (!err)
		err = query_array(self, peer_regions_q, name, sizeof(*buf), (void **)&buf);
	if (err == -ENOMEM && PyErr_Occurred())
		return NULL;
	if (err < 0) {
		PyMem_Free(buf);
		return Py_BuildValue("(i[])", err);
	}
	list = PyList_New(0);
	for (i = 0; list && i < err; i++) {
		PyObject *item = Py_BuildValue("(KKI)", (unsigned long long)buf[i].addr,
					       (unsigned long long)buf[i].len, buf[i].flags);

		if (!item || PyList_Append(list, item)) {
			Py_XDECREF(item);
			Py_CLEAR(list);
			break;
		}
		Py_DECREF(item);
	}
	PyMem_Free(buf);
	return list ? Py_BuildValue("(iN)", 0, list) : NULL;
}

static PyMethodDef engine_methods[] = {
	{ "finalize", (PyCFunction)engine_finalize, METH_NOARGS,
	  "finalize() -> None: hixl_engine_finalize() without the GIL; idempotent" },
	{ "register_mem", (PyCFunction)engine_register_mem, METH_VARARGS,
	  "register_mem(addr, len, flags, type, dmabuf_fd, dmabuf_offset, buffer) -> (err, handle)" },
	{ "deregister_mem", (PyCFunction)engine_deregister_mem, METH_VARARGS,
	  "deregister_mem(handle) -> err" },
	{ "mem_info", (PyCFunction)engine_mem_info, METH_VARARGS,
	  "mem_info(handle) -> (err, (addr, len, type, requested, source, flags) | None)" },
	{ "connect", (PyCFunction)engine_connect, METH_VARARGS, "connect(name, timeout_ms) -> err" },
	{ "connect_async", (PyCFunction)engine_connect_async, METH_VARARGS,
	  "connect_async(name, timeout_ms) -> err" },
	{ "disconnect", (PyCFunction)engine_disconnect, METH_VARARGS,
	  "disconnect(name, timeout_ms) -> err" },
	{ "disconnect_async", (PyCFunction)engine_disconnect_async, METH_VARARGS,
	  "disconnect_async(name, timeout_ms) -> err" },
	{ "get_connect_status", (PyCFunction)engine_get_connect_status, METH_O,
	  "get_connect_status(name) -> (err, status)" },
	{ "get_all_connect_status", (PyCFunction)engine_get_all_connect_status, METH_NOARGS,
	  "get_all_connect_status() -> (err, [(name, status, err)])" },
	{ "transfer_sync", (PyCFunction)engine_transfer_sync, METH_VARARGS,
	  "transfer_sync(name, op, descs, timeout_ms) -> (err, failed_index)" },
	{ "transfer_async", (PyCFunction)engine_transfer_async, METH_VARARGS,
	  "transfer_async(name, op, descs, timeout_ms, user_data) -> (err, Request | None)" },
	{ "get_all_transfer_status", (PyCFunction)engine_get_all_transfer_status, METH_VARARGS,
	  "get_all_transfer_status(flags, max) -> (err, [(Request, status, err)])" },
	{ "send_notify", (PyCFunction)engine_send_notify, METH_VARARGS,
	  "send_notify(name, notify_name: bytes, msg: bytes, timeout_ms) -> err" },
	{ "get_notifies", (PyCFunction)engine_get_notifies, METH_NOARGS,
	  "get_notifies() -> (err, [(from, name, msg)], dropped)" },
	{ "device", (PyCFunction)engine_device, METH_NOARGS,
	  "device() -> str: the RDMA device's name, '' once finalized" },
	{ "name", (PyCFunction)engine_name, METH_NOARGS,
	  "name() -> str: hixl_engine_name(), the port picked for port 0; '' once finalized" },
	{ "peer_regions", (PyCFunction)engine_peer_regions, METH_O,
	  "peer_regions(name) -> (err, [(addr, len, flags)]): the linked peer's\n"
	  "registrations, oldest first (HIXL_PEER_REGION_* flags)" },
	{ "link_stats", (PyCFunction)engine_link_stats, METH_NOARGS,
	  "link_stats() -> (err, [(peer, state, flags, err, {counter: value})])" },
	{ "event_fd", (PyCFunction)engine_event_fd, METH_NOARGS,
	  "event_fd() -> int: hixl_engine_event_fd(), readable while a request ended\n"
	  "unreported or notifications wait; owned by the engine; -errno on failure" },
	{ "async_path", (PyCFunction)engine_async_path, METH_NOARGS,
	  "async_path() -> int: 1 io_uring, 0 worker threads, -errno" },
	{ NULL }
};

static PyGetSetDef engine_getset[] = {
	{ "finalized", (getter)engine_finalized, NULL, "True after finalize()", NULL },
	{ NULL }
};

static PyMemberDef engine_members[] = {
	{ "buffers", T_OBJECT, offsetof(EngineObject, bufs), READONLY,
	  "{handle: Buffer} of the registrations made from buffer objects" },
	{ NULL }
};

PyTypeObject EngineType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "hixl._hixl.Engine",
	.tp_doc = "One struct hixl_engine (made by engine_init()); finalized when it dies.",
	.tp_basicsize = sizeof(EngineObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = (destructor)engine_dealloc,
	.tp_methods = engine_methods,
	.tp_getset = engine_getset,
	.tp_members = engine_members,
};

