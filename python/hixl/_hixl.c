// SPDX-License-Identifier: MIT
/*
 * _hixl.c - hixl._hixl, the CPython extension under the hixl package: a thin
 * layer over libhixl-user (<hixl/hixl.h>).  Every call returns the library's
 * 0 or negative errno value; the pure-Python layer (hixl/__init__.py) turns
 * those into HIXL's status codes, enums and descriptor classes.
 *
 * Engine   (_engine.c) one struct hixl_engine.  A read-write lock orders the calls
 *          against finalize (HIXL: finalize must not race with any other
 *          call): every call holds it for reading, finalize for writing.
 *          The blocking calls release the GIL.  The engine keeps the
 *          Buffer of each registration made from a Python buffer until
 *          that registration is dropped or the engine finalized.
 * Request  (_request.c) one struct hixl_request of hixl_transfer_async(); freed (or
 *          detached, while WAITING) when the object dies.  Its address is
 *          the C request's user_data, which is how
 *          hixl_get_all_transfer_status() results find their object.
 * Buffer   (here) a held Py_buffer export (contiguous) of any buffer object.
 */
#include "_hixl.h"

/* ---- Buffer ------------------------------------------------------------- */


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

PyTypeObject BufferType = {
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
int utf8(PyObject *o, const char **s, Py_ssize_t *len)
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
int addr_of(PyObject *o, uint64_t *v)
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

PyObject *s_local_addr, *s_remote_addr, *s_len;

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
	/* hixl's own two: FAILED, as HIXL's initialize fails; last_error() says why */
	[HIXL_NO_MODULE] = 503900,
	[HIXL_NO_PERMISSION] = 503900,
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

static PyObject *mod_strerror(PyObject *mod, PyObject *arg)
{
	int err;

	if (as_int(arg, &err))
		return NULL;
	return PyUnicode_FromString(hixl_strerror(err));
}

static PyObject *mod_error_hint(PyObject *mod, PyObject *arg)
{
	int err;

	if (as_int(arg, &err))
		return NULL;
	return PyUnicode_FromString(hixl_error_hint(err));
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
	{ "strerror", mod_strerror, METH_O, "strerror(err) -> str: hixl_strerror()" },
	{ "error_hint", mod_error_hint, METH_O, "error_hint(err) -> str: hixl_error_hint(), '' if none" },
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
	    PyType_Ready(&RequestType) < 0 || PyType_Ready(&OpDescsType) < 0)
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
	    PyModule_AddObjectRef(m, "OpDescs", (PyObject *)&OpDescsType) ||
	    PyModule_AddIntConstant(m, "REG_READ_ONLY", HIXL_REG_READ_ONLY) ||
	    PyModule_AddIntConstant(m, "REG_LOCAL_ONLY", HIXL_REG_LOCAL_ONLY) ||
	    PyModule_AddIntConstant(m, "QUERY_SKIP_WAITING", HIXL_QUERY_SKIP_WAITING) ||
	    PyModule_AddIntConstant(m, "LINK_STAT_ACTIVE", HIXL_LINK_STAT_ACTIVE) ||
	    PyModule_AddIntConstant(m, "LINK_STAT_NAMED", HIXL_LINK_STAT_NAMED) ||
	    PyModule_AddIntConstant(m, "LINK_STAT_LOCAL", HIXL_LINK_STAT_LOCAL) ||
	    PyModule_AddIntConstant(m, "LINK_STATE_CONNECTING", HIXL_LINK_STATE_CONNECTING) ||
	    PyModule_AddIntConstant(m, "LINK_STATE_READY", HIXL_LINK_STATE_READY) ||
	    PyModule_AddIntConstant(m, "LINK_STATE_ERROR", HIXL_LINK_STATE_ERROR) ||
	    PyModule_AddIntConstant(m, "LINK_STATE_CLOSED", HIXL_LINK_STATE_CLOSED) ||
	    PyModule_AddIntConstant(m, "C_MEM_HOST", HIXL_MEM_HOST) ||
	    PyModule_AddIntConstant(m, "C_MEM_DEVICE", HIXL_MEM_DEVICE) ||
	    PyModule_AddIntConstant(m, "ESHUTDOWN", ESHUTDOWN) ||
	    PyModule_AddIntConstant(m, "EINPROGRESS", EINPROGRESS)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
