// SPDX-License-Identifier: MIT
/*
 * _request.c - hixl.Request (one struct hixl_request of
 * hixl_transfer_async()) and the calls that make and list them.
 */
#include "_hixl.h"

/* ---- Request ------------------------------------------------------------- */


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
PyObject *engine_transfer_async(EngineObject *self, PyObject *args)
{
	PyObject *name_o, *descs_o, *user_data;
	struct hixl_request *req = NULL;
	OpDescsObject *d;
	RequestObject *r;
	const char *name;
	int op, timeout, err;

	if (!PyArg_ParseTuple(args, "OiOiO:transfer_async", &name_o, &op, &descs_o, &timeout,
			      &user_data))
		return NULL;
	err = utf8(name_o, &name, NULL);
	if (err == -1)
		return NULL;
	if (err)
		return Py_BuildValue("(iO)", err, Py_None);
	d = descs_from(descs_o);
	if (!d)
		return NULL;
	r = PyObject_GC_New(RequestObject, &RequestType);
	if (!r) {
		Py_DECREF(d);
		return NULL;
	}
	r->engine = (EngineObject *)Py_NewRef(self);
	r->req = NULL;
	r->user_data = Py_NewRef(user_data);
	r->weakreflist = NULL;
	PyObject_GC_Track(r);
	err = eng_enter(self);
	if (!err) {
		struct hixl_transfer_args ta = HIXL_TRANSFER_ARGS_INIT(timeout);

		ta.user_data = r;
		Py_BEGIN_ALLOW_THREADS
		err = hixl_transfer_async(self->eng, name, (enum hixl_op)op, d->d, (size_t)d->n,
					  &ta, &req);
		Py_END_ALLOW_THREADS
		r->req = err ? NULL : req;
		eng_leave(self);
	}
	Py_DECREF(d);
	if (err) {
		Py_DECREF(r);
		return Py_BuildValue("(iO)", err, Py_None);
	}
	return Py_BuildValue("(iN)", 0, (PyObject *)r);
}

/* get_all_transfer_status(flags, max) -> (err, [(Request, status, err), ...]);
 * the GIL stays held from the call to the references taken, so that no
 * listed request can be freed in between */
PyObject *engine_get_all_transfer_status(EngineObject *self, PyObject *args)
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

/* cancel() -> err: hixl_request_cancel() without the GIL */
static PyObject *request_cancel(RequestObject *self, PyObject *unused)
{
	int err = self->req ? eng_enter(self->engine) : -EINVAL;

	if (err)
		return PyLong_FromLong(err);
	Py_BEGIN_ALLOW_THREADS
	err = hixl_request_cancel(self->engine->eng, self->req);
	Py_END_ALLOW_THREADS
	eng_leave(self->engine);
	return PyLong_FromLong(err);
}

/* await req: hixl._aio.wait(req).__await__() (the event fd in the loop) */
static PyObject *request_await(RequestObject *self)
{
	PyObject *mod, *coro, *it;

	mod = PyImport_ImportModule("hixl._aio");
	if (!mod)
		return NULL;
	coro = PyObject_CallMethod(mod, "wait", "O", (PyObject *)self);
	Py_DECREF(mod);
	if (!coro)
		return NULL;
	it = PyObject_CallMethod(coro, "__await__", NULL);
	Py_DECREF(coro);
	return it;
}

static PyObject *request_engine(RequestObject *self, void *unused)
{
	return Py_NewRef(self->engine ? (PyObject *)self->engine : Py_None);
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
	{ "cancel", (PyCFunction)request_cancel, METH_NOARGS,
	  "cancel() -> err: hixl_request_cancel() without the GIL: 0 the request has\n"
	  "ended (FAILED, result() -ECANCELED, unless it ended first); -EALREADY it had\n"
	  "ended before; -ESHUTDOWN the engine was finalized" },
	{ NULL }
};

static PyMemberDef request_members[] = {
	{ "user_data", T_OBJECT, offsetof(RequestObject, user_data), READONLY,
	  "the user_data given to transfer_async()" },
	{ NULL }
};

static PyGetSetDef request_getset[] = {
	{ "engine", (getter)request_engine, NULL, "the C engine (hixl._hixl.Engine) of the request",
	  NULL },
	{ NULL }
};

static PyAsyncMethods request_as_async = {
	.am_await = (unaryfunc)request_await,
};

static PyNumberMethods request_as_number = {
	.nb_index = (unaryfunc)request_index,
	.nb_int = (unaryfunc)request_index,
};

PyTypeObject RequestType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "hixl.Request",
	.tp_doc = "One asynchronous transfer (struct hixl_request), made by\n"
		  "Hixl.transfer_async().  int(req) is the C request's address (HIXL's\n"
		  "int TransferReq).  Dropping the last reference frees it; a request\n"
		  "still WAITING then runs to its end and the library frees it.\n"
		  "'await req' waits in the running asyncio loop (hixl._aio.wait()).",
	.tp_basicsize = sizeof(RequestObject),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_dealloc = (destructor)request_dealloc,
	.tp_traverse = (traverseproc)request_traverse,
	.tp_clear = (inquiry)request_clear,
	.tp_weaklistoffset = offsetof(RequestObject, weakreflist),
	.tp_methods = request_methods,
	.tp_members = request_members,
	.tp_as_number = &request_as_number,
	.tp_as_async = &request_as_async,
	.tp_getset = request_getset,
	.tp_repr = (reprfunc)request_repr,
};

