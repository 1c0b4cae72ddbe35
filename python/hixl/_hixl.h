/* SPDX-License-Identifier: MIT */
/*
 * _hixl.h - what the files of the hixl._hixl extension share: the object
 * layouts and the helpers.  _hixl.c: the module, Buffer, argument helpers;
 * _descs.c: OpDescs, descriptor batches;
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

/* a batch of descriptors: d[n], owned, or in place in a held export */
typedef struct {
	PyObject_HEAD
	struct hixl_op_desc *d;
	Py_ssize_t n;
	Py_buffer view;
	int held;			/* d points into view */
} OpDescsObject;

extern PyTypeObject BufferType, EngineType, RequestType, OpDescsType;

/* _hixl.c */
int utf8(PyObject *o, const char **s, Py_ssize_t *len);
int addr_of(PyObject *o, uint64_t *v);
extern PyObject *s_local_addr, *s_remote_addr, *s_len;

/* _descs.c */
OpDescsObject *descs_from(PyObject *o);

/* _engine.c */
int eng_enter(EngineObject *self);
void eng_leave(EngineObject *self);
PyObject *mod_engine_init(PyObject *mod, PyObject *args);

/* _request.c */
PyObject *engine_transfer_async(EngineObject *self, PyObject *args);
PyObject *engine_get_all_transfer_status(EngineObject *self, PyObject *args);

#endif /* HIXL_PY_HIXL_H */
