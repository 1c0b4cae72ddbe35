// SPDX-License-Identifier: MIT
/*
 * _hixl.c - hixl._hixl, the CPython extension under the hixl package: a thin
 * layer over libhixl-user (<hixl/hixl.h>).  Every call returns the library's
 * 0 or negative errno value; the pure-Python layer (hixl/__init__.py) turns
 * those into HIXL's status codes, enums and descriptor classes.
 *
 * Engine   one struct hixl_engine.  A read-write lock orders the calls
 *          against finalize (HIXL: finalize must not race with any other
 *          call): every call holds it for reading, finalize for writing.
 *          The blocking calls release the GIL.  The engine keeps the
 *          Buffer of each registration made from a Python buffer until
 *          that registration is dropped or the engine finalized.
 * Request  one struct hixl_request of hixl_transfer_async(); freed (or
 *          detached, while WAITING) when the object dies.  Its address is
 *          the C request's user_data, which is how
 *          hixl_get_all_transfer_status() results find their object.
 * Buffer   a held Py_buffer export (contiguous) of any buffer object.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <hixl/hixl.h>

/* ---- Buffer ------------------------------------------------------------- */

typedef struct {
	PyObject_HEAD
	Py_buffer view;
	int held;
} BufferObject;

static PyTypeObject BufferType;

static int buffer_init(BufferObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "obj", NULL };
	PyObject *obj;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:Buffer", kwlist, &obj))
		return -1;
	if (self->held) {
		PyErr_SetString(PyExc_RuntimeError, "Buffer already holds an export");
		return -1;
	}
	if (PyObject_GetBuffer(obj, &self->view, PyBUF_ANY_CONTIGUOUS) < 0)
		return -1;
	self->held = 1;
	return 0;
}

static void buffer_release_view(BufferObject *self)
{
	if (self->held) {
		self->held = 0;
		PyBuffer_Release(&self->view);
	}
}

static void buffer_dealloc(BufferObject *self)
{
	buffer_release_view(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *buffer_release(BufferObject *self, PyObject *unused)
{
	buffer_release_view(self);
	Py_RETURN_NONE;
}

static PyObject *buffer_get(BufferObject *self, void *which)
{
	if (!self->held) {
		PyErr_SetString(PyExc_ValueError, "Buffer released");
		return NULL;
	}
	switch ((intptr_t)which) {
	case 0:
		return PyLong_FromUnsignedLongLong((uintptr_t)self->view.buf);
	case 1:
		return PyLong_FromSsize_t(self->view.len);
	case 2:
		return PyBool_FromLong(self->view.readonly);
	default:
		return Py_NewRef(self->view.obj ? self->view.obj : Py_None);
	}
}

static PyObject *buffer_held(BufferObject *self, void *unused)
{
	return PyBool_FromLong(self->held);
}

static PyGetSetDef buffer_getset[] = {
	{ "addr", (getter)buffer_get, NULL, "start address of the memory (int)", (void *)0 },
	{ "nbytes", (getter)buffer_get, NULL, "length in bytes (int)", (void *)1 },
	{ "readonly", (getter)buffer_get, NULL, "True for a read-only export", (void *)2 },
	{ "obj", (getter)buffer_get, NULL, "the exporting object", (void *)3 },
	{ "held", (getter)buffer_held, NULL, "False once released", NULL },
	{ NULL }
};

static PyMethodDef buffer_methods[] = {
	{ "release", (PyCFunction)buffer_release, METH_NOARGS,
	  "release() -> None: give the export back (idempotent)" },
	{ NULL }
};

static PyTypeObject BufferType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "hixl._hixl.Buffer",
	.tp_doc = "Buffer(obj): a held contiguous buffer export of obj (PyBUF_ANY_CONTIGUOUS);\n"
		  "raises TypeError/BufferError like memoryview() for other objects.",
	.tp_basicsize = sizeof(BufferObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)buffer_init,
	.tp_dealloc = (destructor)buffer_dealloc,
	.tp_methods = buffer_methods,
	.tp_getset = buffer_getset,
};

/* ---- argument helpers ---------------------------------------------------- */

/* UTF-8 of a str: 0; -EINVAL when it holds a NUL; -1 with TypeError set */
static int utf8(PyObject *o, const char **s, Py_ssize_t *len)
{
	Py_ssize_t n;

	if (!PyUnicode_Check(o)) {
		PyErr_Format(PyExc_TypeError, "expected str, got %.80s", Py_TYPE(o)->tp_name);
		return -1;
	}
	*s = PyUnicode_AsUTF8AndSize(o, &n);
	if (!*s)
		return -1;
	if (len)
		*len = n;
	return (size_t)n == strlen(*s) ? 0 : -EINVAL;
}

/* an address: an int 0..2^64-1, or a buffer object (its start); 0 or -1 */
static int addr_of(PyObject *o, uint64_t *v)
{
	Py_buffer view;

	if (PyLong_Check(o)) {
		*v = PyLong_AsUnsignedLongLong(o);
		if (*v == (uint64_t)-1 && PyErr_Occurred()) {
			PyErr_SetString(PyExc_TypeError, "an address or length must be an int in 0..2**64-1");
			return -1;
		}
		return 0;
	}
	if (PyObject_CheckBuffer(o)) {
		if (PyObject_GetBuffer(o, &view, PyBUF_ANY_CONTIGUOUS) < 0)
			return -1;
		*v = (uintptr_t)view.buf;
		PyBuffer_Release(&view);
		return 0;
	}
	PyErr_Format(PyExc_TypeError, "expected an int or a buffer object, got %.80s",
		     Py_TYPE(o)->tp_name);
	return -1;
}

/* ---- Engine -------------------------------------------------------------- */

typedef struct {
	PyObject_HEAD
	struct hixl_engine *eng;	/* NULL once finalized */
	pthread_rwlock_t lock;		/* read: one call on eng; write: finalize */
	PyObject *bufs;			/* {handle: Buffer} */
} EngineObject;

static PyTypeObject EngineType;

/* Take the engine for one call (GIL held before and after): 0, or -ESHUTDOWN
 * when it was finalized.  Waits for a running finalize without the GIL. */
static int eng_enter(EngineObject *self)
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

static void eng_leave(EngineObject *self)
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
static PyObject *mod_engine_init(PyObject *mod, PyObject *args)
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

static PyObject *s_local_addr, *s_remote_addr, *s_len;

/* descriptors (objects with local_addr, remote_addr, len) into a C array */
static Py_ssize_t descs_from(PyObject *seq_o, struct hixl_op_desc **out)
{
	PyObject *seq, *item, *v;
	struct hixl_op_desc *d;
	Py_ssize_t i, n;
	uint64_t f[3];
	int k, rc;

	seq = PySequence_Fast(seq_o, "op_descs must be a sequence of TransferOpDesc");
	if (!seq)
		return -1;
	n = PySequence_Fast_GET_SIZE(seq);
	d = PyMem_Calloc(n ? (size_t)n : 1, sizeof(*d));
	if (!d) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < n; i++) {
		item = PySequence_Fast_GET_ITEM(seq, i);
		for (k = 0; k < 3; k++) {
			v = PyObject_GetAttr(item, k == 0 ? s_local_addr : k == 1 ? s_remote_addr : s_len);
			rc = v ? addr_of(v, &f[k]) : -1;
			Py_XDECREF(v);
			if (rc) {
				Py_DECREF(seq);
				PyMem_Free(d);
				return -1;
			}
		}
		d[i].local_addr = f[0];
		d[i].remote_addr = f[1];
		d[i].len = f[2];
	}
	Py_DECREF(seq);
	*out = d;
	return n;
}

/* transfer_sync(name, op, descs, timeout_ms) -> (err, failed_index) */
static PyObject *engine_transfer_sync(EngineObject *self, PyObject *args)
{
	struct hixl_op_desc *d = NULL;
	PyObject *name_o, *descs_o;
	size_t failed = 0;
	const char *name;
	int op, timeout, err;
	Py_ssize_t n;

	if (!PyArg_ParseTuple(args, "OiOi:transfer_sync", &name_o, &op, &descs_o, &timeout))
		return NULL;
	err = utf8(name_o, &name, NULL);
	if (err == -1)
		return NULL;
	if (err)
		return Py_BuildValue("(in)", err, (Py_ssize_t)0);
	n = descs_from(descs_o, &d);
	if (n < 0)
		return NULL;
	failed = (size_t)n;
	err = eng_enter(self);
	if (!err) {
		Py_BEGIN_ALLOW_THREADS
		err = hixl_transfer_sync(self->eng, name, (enum hixl_op)op, d, (size_t)n, timeout,
					 &failed);
		Py_END_ALLOW_THREADS
		eng_leave(self);
	}
	PyMem_Free(d);
	return Py_BuildValue("(in)", err, (Py_ssize_t)failed);
}

/* ---- Request ------------------------------------------------------------- */

typedef struct {
	PyObject_HEAD
	EngineObject *engine;
	struct hixl_request *req;	/* NULL until submitted */
	PyObject *user_data;
	PyObject *weakreflist;
} RequestObject;

static PyTypeObject RequestType;

static void request_dealloc(RequestObject *self)
{
	EngineObject *e = self->engine;

	PyObject_GC_UnTrack(self);
	if (self->weakreflist)
		PyObject_ClearWeakRefs((PyObject *)self);
	/* a finalize holding the lock frees the request itself */
	if (self->req && e && !pthread_rwlock_tryrdlock(&e->lock)) {
		if (e->eng)
			hixl_request_free(self->req);
		pthread_rwlock_unlock(&e->lock);
	}
	Py_CLEAR(self->user_data);
	Py_CLEAR(self->engine);
	PyObject_GC_Del(self);
}

static int request_traverse(RequestObject *self, visitproc visit, void *arg)
{
	Py_VISIT(self->user_data);
	Py_VISIT(self->engine);
	return 0;
}

static int request_clear(RequestObject *self)
{
	Py_CLEAR(self->user_data);
	return 0;
}

/* transfer_async(name, op, descs, timeout_ms, user_data) -> (err, Request | None) */
static PyObject *engine_transfer_async(EngineObject *self, PyObject *args)
{
	PyObject *name_o, *descs_o, *user_data;
	struct hixl_op_desc *d = NULL;
	struct hixl_request *req = NULL;
	RequestObject *r;
	const char *name;
	int op, timeout, err;
	Py_ssize_t n;

	if (!PyArg_ParseTuple(args, "OiOiO:transfer_async", &name_o, &op, &descs_o, &timeout,
			      &user_data))
		return NULL;
	err = utf8(name_o, &name, NULL);
	if (err == -1)
		return NULL;
	if (err)
		return Py_BuildValue("(iO)", err, Py_None);
	n = descs_from(descs_o, &d);
	if (n < 0)
		return NULL;
	r = PyObject_GC_New(RequestObject, &RequestType);
	if (!r) {
		PyMem_Free(d);
		return NULL;
	}
	r->engine = (EngineObject *)Py_NewRef(self);
	r->req = NULL;
	r->user_data = Py_NewRef(user_data);
	r->weakreflist = NULL;
	PyObject_GC_Track(r);
	err = eng_enter(self);
	if (!err) {
		Py_BEGIN_ALLOW_THREADS
		err = hixl_transfer_async(self->eng, name, (enum hixl_op)op, d, (size_t)n, timeout,
					  r, &req);
		Py_END_ALLOW_THREADS
		r->req = err ? NULL : req;
		eng_leave(self);
	}
	PyMem_Free(d);
	if (err) {
		Py_DECREF(r);
		return Py_BuildValue("(iO)", err, Py_None);
	}
	return Py_BuildValue("(iN)", 0, (PyObject *)r);
}

/* get_all_transfer_status(flags, max) -> (err, [(Request, status, err), ...]);
 * the GIL stays held from the call to the references taken, so that no
 * listed request can be freed in between */
static PyObject *engine_get_all_transfer_status(EngineObject *self, PyObject *args)
{
	struct hixl_transfer_result *out;
	unsigned long long max;
	unsigned int flags;
	PyObject *list, *item;
	int n, i, err;

	if (!PyArg_ParseTuple(args, "IK:get_all_transfer_status", &flags, &max))
		return NULL;
	err = eng_enter(self);
	if (err)
		return Py_BuildValue("(i[])", err);
	n = hixl_get_all_transfer_status(self->eng, flags, NULL, 0);
	if (n <= 0 || max == 0) {
		eng_leave(self);
		return Py_BuildValue("(i[])", n < 0 ? n : 0);
	}
	if ((unsigned long long)n > max)
		n = (int)max;
	out = PyMem_Calloc((size_t)n, sizeof(*out));
	if (!out) {
		eng_leave(self);
		return PyErr_NoMemory();
	}
	n = hixl_get_all_transfer_status(self->eng, flags, out, (size_t)n);
	eng_leave(self);
	if (n < 0) {
		PyMem_Free(out);
		return Py_BuildValue("(i[])", n);
	}
	list = PyList_New(n);
	for (i = 0; list && i < n; i++) {
		item = Py_BuildValue("(Oii)", (PyObject *)out[i].user_data, (int)out[i].status,
				     (int)out[i].err);
		if (!item)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, i, item);
	}
	PyMem_Free(out);
	return list ? Py_BuildValue("(iN)", 0, list) : NULL;
}

/* status() -> (err, status) */
static PyObject *request_status(RequestObject *self, PyObject *unused)
{
	enum hixl_transfer_status st = HIXL_TRANSFER_FAILED;
	int err = self->req ? eng_enter(self->engine) : -EINVAL;

	if (err)
		return Py_BuildValue("(ii)", err, (int)st);
	err = hixl_get_transfer_status(self->engine->eng, self->req, &st);
	eng_leave(self->engine);
	return Py_BuildValue("(ii)", err, (int)st);
}

/* wait(timeout_ms) -> (err, status), without the GIL */
static PyObject *request_wait(RequestObject *self, PyObject *args)
{
	enum hixl_transfer_status st = HIXL_TRANSFER_FAILED;
	int timeout, err;

	if (!PyArg_ParseTuple(args, "i:wait", &timeout))
		return NULL;
	err = self->req ? eng_enter(self->engine) : -EINVAL;
	if (err)
		return Py_BuildValue("(ii)", err, (int)st);
	Py_BEGIN_ALLOW_THREADS
	err = hixl_request_wait(self->engine->eng, self->req, timeout, &st);
	Py_END_ALLOW_THREADS
	eng_leave(self->engine);
	return Py_BuildValue("(ii)", err, (int)st);
}

/* result() -> (err, failed_index) */
static PyObject *request_result(RequestObject *self, PyObject *unused)
{
	size_t failed = 0;
	int err = self->req ? eng_enter(self->engine) : -EINVAL;

	if (err)
		return Py_BuildValue("(in)", err, (Py_ssize_t)0);
	err = hixl_request_result(self->req, &failed);
	eng_leave(self->engine);
	return Py_BuildValue("(in)", err, (Py_ssize_t)failed);
}

static PyObject *request_index(RequestObject *self)
{
	return PyLong_FromVoidPtr(self->req);
}

static PyObject *request_repr(RequestObject *self)
{
	return PyUnicode_FromFormat("<hixl.Request %p>", (void *)self->req);
}

static PyMethodDef request_methods[] = {
	{ "status", (PyCFunction)request_status, METH_NOARGS,
	  "status() -> (err, status): hixl_get_transfer_status(); err 0 or -errno,\n"
	  "-ESHUTDOWN once the engine was finalized" },
	{ "wait", (PyCFunction)request_wait, METH_VARARGS,
	  "wait(timeout_ms) -> (err, status): hixl_request_wait() without the GIL" },
	{ "result", (PyCFunction)request_result, METH_NOARGS,
	  "result() -> (err, failed_index): hixl_request_result()" },
	{ NULL }
};

static PyMemberDef request_members[] = {
	{ "user_data", T_OBJECT, offsetof(RequestObject, user_data), READONLY,
	  "the user_data given to transfer_async()" },
	{ NULL }
};

static PyNumberMethods request_as_number = {
	.nb_index = (unaryfunc)request_index,
	.nb_int = (unaryfunc)request_index,
};

static PyTypeObject RequestType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "hixl.Request",
	.tp_doc = "One asynchronous transfer (struct hixl_request), made by\n"
		  "Hixl.transfer_async().  int(req) is the C request's address (HIXL's\n"
		  "int TransferReq).  Dropping the last reference frees it; a request\n"
		  "still WAITING then runs to its end and the library frees it.",
	.tp_basicsize = sizeof(RequestObject),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_dealloc = (destructor)request_dealloc,
	.tp_traverse = (traverseproc)request_traverse,
	.tp_clear = (inquiry)request_clear,
	.tp_weaklistoffset = offsetof(RequestObject, weakreflist),
	.tp_methods = request_methods,
	.tp_members = request_members,
	.tp_as_number = &request_as_number,
	.tp_repr = (reprfunc)request_repr,
};

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

static PyObject *engine_async_path(EngineObject *self, PyObject *unused)
{
	int r = eng_enter(self);

	if (!r) {
		r = hixl_engine_async_path(self->eng);
		eng_leave(self);
	}
	return PyLong_FromLong(r);
}

static PyMethodDef engine_methods[] = {
	{ "finalize", (PyCFunction)engine_finalize, METH_NOARGS,
	  "finalize() -> None: hixl_engine_finalize() without the GIL; idempotent" },
	{ "register_mem", (PyCFunction)engine_register_mem, METH_VARARGS,
	  "register_mem(addr, len, flags, type, dmabuf_fd, dmabuf_offset, buffer) -> (err, handle)" },
	{ "deregister_mem", (PyCFunction)engine_deregister_mem, METH_VARARGS,
	  "deregister_mem(handle) -> err" },
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

static PyTypeObject EngineType = {
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

/* ---- module functions ---------------------------------------------------- */

/* HIXL's numeric Status codes, indexed by enum hixl_status */
static const unsigned int status_codes[] = {
	[HIXL_SUCCESS] = 0,
	[HIXL_PARAM_INVALID] = 103900,
	[HIXL_TIMEOUT] = 103901,
	[HIXL_NOT_CONNECTED] = 103902,
	[HIXL_ALREADY_CONNECTED] = 103903,
	[HIXL_NOTIFY_FAILED] = 103904,
	[HIXL_UNSUPPORTED] = 103905,
	[HIXL_RESOURCE_EXHAUSTED] = 203900,
	[HIXL_FAILED] = 503900,
};

/* an int argument that fits a C int: 0, or -1 with an exception set */
static int as_int(PyObject *o, int *v)
{
	long l = PyLong_AsLong(o);

	if (l == -1 && PyErr_Occurred())
		return -1;
	if (l < INT_MIN || l > INT_MAX) {
		PyErr_SetString(PyExc_OverflowError, "value does not fit a C int");
		return -1;
	}
	*v = (int)l;
	return 0;
}

static PyObject *mod_status_code(PyObject *mod, PyObject *arg)
{
	enum hixl_status st;
	int err;

	if (as_int(arg, &err))
		return NULL;
	st = hixl_status_from_errno(err);
	if ((unsigned int)st >= sizeof(status_codes) / sizeof(status_codes[0]))
		st = HIXL_FAILED;
	return PyLong_FromUnsignedLong(status_codes[st]);
}

static PyObject *mod_last_error(PyObject *mod, PyObject *unused)
{
	return PyUnicode_DecodeUTF8(hixl_last_error(), (Py_ssize_t)strlen(hixl_last_error()),
				    "replace");
}

static PyObject *mod_version(PyObject *mod, PyObject *unused)
{
	return PyUnicode_FromString(hixl_version());
}

static PyObject *mod_get_capability(PyObject *mod, PyObject *arg)
{
	int32_t value = 0;
	int feature, err;

	if (as_int(arg, &feature))
		return NULL;
	err = hixl_get_capability(feature, &value);
	return Py_BuildValue("(ii)", err, (int)value);
}

static PyObject *mod_errno_name(PyObject *mod, PyObject *arg)
{
	int err;

	if (as_int(arg, &err))
		return NULL;
	return PyUnicode_FromString(strerrorname_np(err < 0 ? -err : err) ?: "E?");
}

static PyMethodDef mod_methods[] = {
	{ "engine_init", mod_engine_init, METH_VARARGS,
	  "engine_init(local_engine, options) -> (err, Engine | None): hixl_engine_init()\n"
	  "without the GIL; options a sequence of (key, value) str pairs" },
	{ "status_code", mod_status_code, METH_O,
	  "status_code(err) -> int: HIXL's numeric status for a -errno (hixl_status_from_errno())" },
	{ "last_error", mod_last_error, METH_NOARGS,
	  "last_error() -> str: hixl_last_error() of this thread" },
	{ "version", mod_version, METH_NOARGS, "version() -> str: hixl_version()" },
	{ "get_capability", mod_get_capability, METH_O,
	  "get_capability(feature) -> (err, value): hixl_get_capability()" },
	{ "errno_name", mod_errno_name, METH_O, "errno_name(err) -> str, e.g. 'ENOTCONN'" },
	{ NULL }
};

static struct PyModuleDef hixl_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "hixl._hixl",
	.m_doc = "The C layer of the hixl package over libhixl-user; use the hixl package.",
	.m_size = -1,
	.m_methods = mod_methods,
};

PyMODINIT_FUNC PyInit__hixl(void);
PyMODINIT_FUNC PyInit__hixl(void)
{
	PyObject *m;

	if (PyType_Ready(&BufferType) < 0 || PyType_Ready(&EngineType) < 0 ||
	    PyType_Ready(&RequestType) < 0)
		return NULL;
	s_local_addr = PyUnicode_InternFromString("local_addr");
	s_remote_addr = PyUnicode_InternFromString("remote_addr");
	s_len = PyUnicode_InternFromString("len");
	if (!s_local_addr || !s_remote_addr || !s_len)
		return NULL;
	m = PyModule_Create(&hixl_module);
	if (!m)
		return NULL;
	if (PyModule_AddObjectRef(m, "Buffer", (PyObject *)&BufferType) ||
	    PyModule_AddObjectRef(m, "Engine", (PyObject *)&EngineType) ||
	    PyModule_AddObjectRef(m, "Request", (PyObject *)&RequestType) ||
	    PyModule_AddIntConstant(m, "REG_READ_ONLY", HIXL_REG_READ_ONLY) ||
	    PyModule_AddIntConstant(m, "REG_LOCAL_ONLY", HIXL_REG_LOCAL_ONLY) ||
	    PyModule_AddIntConstant(m, "QUERY_SKIP_WAITING", HIXL_QUERY_SKIP_WAITING) ||
	    PyModule_AddIntConstant(m, "C_MEM_HOST", HIXL_MEM_TYPE_HOST) ||
	    PyModule_AddIntConstant(m, "C_MEM_DEVICE", HIXL_MEM_TYPE_DEVICE) ||
	    PyModule_AddIntConstant(m, "ESHUTDOWN", ESHUTDOWN) ||
	    PyModule_AddIntConstant(m, "EINPROGRESS", EINPROGRESS)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
