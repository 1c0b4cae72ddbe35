/* SPDX-License-Identifier: MIT */
/*
 * _hixl.h - what the files of the hixl._hixl extension share: the object
 * layouts and the helpers.  _hixl.c: the module, Buffer, argument helpers;
 * _engine.c: Engine; _request.c: Request and the asynchronous calls.
 */
#ifndef HIXL_PY_HIXL_H
#define HIXL_PY_HIXL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <hixl/hixl.h>

typedef struct {
	PyObject_HEAD
	Py_buffer view;
	int held;
} BufferObject;

typedef struct {
	PyObject_HEAD
	struct hixl_engine *eng;	/* NULL once finalized */
	pthread_rwlock_t lock;		/* read: one call on eng; write: finalize */
	PyObject *bufs;			/* {handle: Buffer} */
} EngineObject;

typedef struct {
	PyObject_HEAD
	EngineObject *engine;
	struct hixl_request *req;	/* NULL until submitted */
	PyObject *user_data;
	PyObject *weakreflist;
} RequestObject;

extern PyTypeObject BufferType, EngineType, RequestType;

/* _hixl.c */
int utf8(PyObject *o, const char **s, Py_ssize_t *len);
int addr_of(PyObject *o, uint64_t *v);
Py_ssize_t descs_from(PyObject *seq_o, struct hixl_op_desc **out);
extern PyObject *s_local_addr, *s_remote_addr, *s_len;

/* _engine.c */
int eng_enter(EngineObject *self);
void eng_leave(EngineObject *self);
PyObject *mod_engine_init(PyObject *mod, PyObject *args);

/* _request.c */
PyObject *engine_transfer_async(EngineObject *self, PyObject *args);
PyObject *engine_get_all_transfer_status(EngineObject *self, PyObject *args);

#endif /* HIXL_PY_HIXL_H */
