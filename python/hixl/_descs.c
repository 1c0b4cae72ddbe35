// SPDX-License-Identifier: MIT
/*
 * _descs.c - hixl.OpDescs: a batch of transfer descriptors as one C array of
 * struct hixl_op_desc, built in one call from arrays (the buffer protocol:
 * numpy, array.array, memoryview) or sequences of ints, or from block ids
 * into registered regions; and descs_from(), which turns whatever a transfer
 * call was given into one.  A C-contiguous (n, 3) array of 8-byte unsigned
 * ints is used in place (the export is held), anything else is copied.
 */
#include "_hixl.h"

/* ---- reading integers from buffers and sequences ------------------------- */

/* an integer buffer's element: its size, its signedness; 0 for other formats */
static int int_format(const char *fmt, int *is_signed)
{
	if (!fmt)
		fmt = "B";
	if (*fmt == '@' || *fmt == '=' || *fmt == '<')
		fmt++;
	if (fmt[0] && fmt[1])
		return 0;
	*is_signed = 1;
	switch (fmt[0]) {
	case 'b': return 1;
	case 'h': return 2;
	case 'i': return 4;
	case 'l': return (int)sizeof(long);
	case 'q': return 8;
	case 'n': return (int)sizeof(Py_ssize_t);
	}
	*is_signed = 0;
	switch (fmt[0]) {
	case 'B': return 1;
	case 'H': return 2;
	case 'I': return 4;
	case 'L': return (int)sizeof(unsigned long);
	case 'Q': return 8;
	case 'N': return (int)sizeof(size_t);
	}
	return 0;
}

/* one element at p: 0, or -1 with ValueError for a negative value */
static int int_at(const char *p, int size, int is_signed, uint64_t *v, const char *what)
{
	int64_t s = 0;

	if (!is_signed) {
		switch (size) {
		case 1: *v = *(const uint8_t *)p; break;
		case 2: { uint16_t x; memcpy(&x, p, 2); *v = x; break; }
		case 4: { uint32_t x; memcpy(&x, p, 4); *v = x; break; }
		default: memcpy(v, p, 8); break;
		}
		return 0;
	}
	switch (size) {
	case 1: s = *(const int8_t *)p; break;
	case 2: { int16_t x; memcpy(&x, p, 2); s = x; break; }
	case 4: { int32_t x; memcpy(&x, p, 4); s = x; break; }
	default: memcpy(&s, p, 8); break;
	}
	if (s < 0) {
		PyErr_Format(PyExc_ValueError, "%s: negative value %lld", what, (long long)s);
		return -1;
	}
	*v = (uint64_t)s;
	return 0;
}

/*
 * IntVec: a 1-D view of integers: a buffer (any stride, integer format) or
 * a sequence of ints, or one int repeated (scalar: n < 0 means "any length").
 */
typedef struct {
	Py_buffer view;
	int held, size, is_signed;
	PyObject *seq;		/* PySequence_Fast, when not a buffer */
	uint64_t scalar;
	Py_ssize_t n;		/* -1: a scalar */
	const char *what;
} IntVec;

static void intvec_release(IntVec *v)
{
	if (v->held)
		PyBuffer_Release(&v->view);
	v->held = 0;
	Py_CLEAR(v->seq);
}

/* 0, or -1 with an exception; scalars allowed when allow_scalar */
static int intvec_open(IntVec *v, PyObject *o, const char *what, int allow_scalar)
{
	memset(v, 0, sizeof(*v));
	v->what = what;
	if (PyIndex_Check(o) && !PyObject_CheckBuffer(o)) {
		PyObject *i;

		if (!allow_scalar) {
			PyErr_Format(PyExc_TypeError, "%s: expected an array or sequence of ints", what);
			return -1;
		}
		i = PyNumber_Index(o);
		if (!i)
			return -1;
		v->scalar = PyLong_AsUnsignedLongLong(i);
		Py_DECREF(i);
		if (v->scalar == (uint64_t)-1 && PyErr_Occurred()) {
			PyErr_Format(PyExc_ValueError, "%s: must be an int in 0..2**64-1", what);
			return -1;
		}
		v->n = -1;
		return 0;
	}
	if (PyObject_CheckBuffer(o) && !PyBytes_Check(o) && !PyByteArray_Check(o)) {
		if (PyObject_GetBuffer(o, &v->view, PyBUF_RECORDS_RO) < 0)
			return -1;
		v->held = 1;
		v->size = int_format(v->view.format, &v->is_signed);
		if (!v->size || v->view.itemsize != v->size) {
			PyErr_Format(PyExc_TypeError, "%s: expected an integer array, got format '%s'",
				     what, v->view.format ? v->view.format : "B");
			intvec_release(v);
			return -1;
		}
		if (v->view.ndim != 1) {
			PyErr_Format(PyExc_ValueError, "%s: expected a 1-D array, got %d dimensions",
				     what, v->view.ndim);
			intvec_release(v);
			return -1;
		}
		v->n = v->view.shape[0];
		return 0;
	}
	v->seq = PySequence_Fast(o, "");
	if (!v->seq) {
		PyErr_Format(PyExc_TypeError, "%s: expected an array or sequence of ints, got %.80s",
			     what, Py_TYPE(o)->tp_name);
		return -1;
	}
	v->n = PySequence_Fast_GET_SIZE(v->seq);
	return 0;
}

static int intvec_get(IntVec *v, Py_ssize_t i, uint64_t *out)
{
	PyObject *item, *idx;

	if (v->n < 0) {
		*out = v->scalar;
		return 0;
	}
	if (v->held)
		return int_at((const char *)v->view.buf + i * v->view.strides[0], v->size,
			      v->is_signed, out, v->what);
	item = PySequence_Fast_GET_ITEM(v->seq, i);
	idx = PyNumber_Index(item);
	if (!idx) {
		PyErr_Format(PyExc_TypeError, "%s[%zd]: expected an int, got %.80s", v->what, i,
			     Py_TYPE(item)->tp_name);
		return -1;
	}
	*out = PyLong_AsUnsignedLongLong(idx);
	Py_DECREF(idx);
	if (*out == (uint64_t)-1 && PyErr_Occurred()) {
		PyErr_Format(PyExc_ValueError, "%s[%zd]: must be an int in 0..2**64-1", v->what, i);
		return -1;
	}
	return 0;
}

/* ---- OpDescs ------------------------------------------------------------- */

static void set_field(struct hixl_op_desc *d, int k, uint64_t v)
{
	if (k == 0)
		d->local_addr = v;
	else if (k == 1)
		d->remote_addr = v;
	else
		d->len = v;
}

/*
 * Field k (0 local_addr, 1 remote_addr, 2 len) of d[0..n) from v: a
 * contiguous array of 8-byte ints in one pass of plain loads (the shape
 * numpy's int64/uint64 arrays have), anything else value by value.  0, or
 * -1 with an exception (a negative value, a non-int item).
 */
static int intvec_fill(IntVec *v, struct hixl_op_desc *d, Py_ssize_t n, int k)
{
	Py_ssize_t i;

	if (v->held && v->size == 8 && v->view.strides[0] == 8) {
		const char *p = v->view.buf;

		for (i = 0; i < n; i++) {
			uint64_t x;

			memcpy(&x, p + 8 * i, 8);
			if (v->is_signed && (int64_t)x < 0) {
				PyErr_Format(PyExc_ValueError, "%s: negative value %lld", v->what,
					     (long long)x);
				return -1;
			}
			set_field(&d[i], k, x);
		}
		return 0;
	}
	for (i = 0; i < n; i++) {
		uint64_t x;

		if (intvec_get(v, i, &x))
			return -1;
		set_field(&d[i], k, x);
	}
	return 0;
}

static OpDescsObject *opdescs_alloc(Py_ssize_t n)
{
	OpDescsObject *self = PyObject_New(OpDescsObject, &OpDescsType);

	if (!self)
		return NULL;
	self->held = 0;
	self->n = n;
	self->d = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(*self->d));
	if (!self->d) {
		self->n = 0;
		Py_DECREF(self);
		PyErr_NoMemory();
		return NULL;
	}
	return self;
}

static void opdescs_dealloc(OpDescsObject *self)
{
	if (self->held)
		PyBuffer_Release(&self->view);
	else
		PyMem_Free(self->d);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* an (n, 3) or (3n,) integer array: in place when C-contiguous 8-byte ints */
static OpDescsObject *opdescs_from_buffer(PyObject *o)
{
	Py_buffer view;
	OpDescsObject *self;
	Py_ssize_t n, i, k;
	int size, is_signed;

	if (PyObject_GetBuffer(o, &view, PyBUF_RECORDS_RO) < 0)
		return NULL;
	size = int_format(view.format, &is_signed);
	if (!size || view.itemsize != size) {
		PyErr_Format(PyExc_TypeError, "descriptor array: expected integers, got format '%s'",
			     view.format ? view.format : "B");
		goto fail;
	}
	if (view.ndim == 2 && view.shape[1] == 3) {
		n = view.shape[0];
	} else if (view.ndim == 1 && view.shape[0] % 3 == 0) {
		n = view.shape[0] / 3;
	} else {
		PyErr_SetString(PyExc_ValueError, "descriptor array: expected shape (n, 3) "
				"(local_addr, remote_addr, len per row) or (3n,)");
		goto fail;
	}
	if (size == 8 && PyBuffer_IsContiguous(&view, 'C') && !((uintptr_t)view.buf & 7)) {
		if (is_signed) {	/* in place, once no value is negative */
			const int64_t *s = view.buf;

			for (i = 0; i < 3 * n; i++) {
				if (s[i] < 0) {
					PyErr_Format(PyExc_ValueError, "descriptor array: row %zd: "
						     "negative value %lld", i / 3, (long long)s[i]);
					goto fail;
				}
			}
		}
		self = PyObject_New(OpDescsObject, &OpDescsType);
		if (!self)
			goto fail;
		self->view = view;
		self->held = 1;
		self->d = view.buf;
		self->n = n;
		return self;
	}
	self = opdescs_alloc(n);
	if (!self)
		goto fail;
	for (i = 0; i < n; i++) {
		for (k = 0; k < 3; k++) {
			const char *p = view.buf;
			uint64_t v;

			if (view.ndim == 2)
				p += i * view.strides[0] + k * view.strides[1];
			else
				p += (3 * i + k) * view.strides[0];
			if (int_at(p, size, is_signed, &v, "descriptor array")) {
				Py_DECREF(self);
				goto fail;
			}
			set_field(&self->d[i], k, v);
		}
	}
	PyBuffer_Release(&view);
	return self;
fail:
	PyBuffer_Release(&view);
	return NULL;
}

/* three equal-length integer arrays or sequences (lens may be one int) */
static OpDescsObject *opdescs_from_arrays(PyObject *lo, PyObject *ro, PyObject *no)
{
	IntVec v[3];
	OpDescsObject *self = NULL;
	Py_ssize_t n;
	int k, opened = 0;

	if (intvec_open(&v[0], lo, "local_addrs", 0))
		goto out;
	opened = 1;
	if (intvec_open(&v[1], ro, "remote_addrs", 0))
		goto out;
	opened = 2;
	if (intvec_open(&v[2], no, "lens", 1))
		goto out;
	opened = 3;
	n = v[0].n;
	if (v[1].n != n || (v[2].n >= 0 && v[2].n != n)) {
		PyErr_Format(PyExc_ValueError, "descriptor arrays of different lengths: "
			     "local_addrs %zd, remote_addrs %zd, lens %zd", n, v[1].n, v[2].n);
		if (v[2].n < 0)
			PyErr_Format(PyExc_ValueError, "descriptor arrays of different lengths: "
				     "local_addrs %zd, remote_addrs %zd", n, v[1].n);
		goto out;
	}
	self = opdescs_alloc(n);
	if (!self)
		goto out;
	for (k = 0; k < 3; k++) {
		if (intvec_fill(&v[k], self->d, n, k)) {
			Py_CLEAR(self);
			goto out;
		}
	}
out:
	for (k = 0; k < opened; k++)
		intvec_release(&v[k]);
	return self;
}

/* descriptors (objects with local_addr, remote_addr, len): the HIXL list */
static OpDescsObject *opdescs_from_objects(PyObject *seq_o)
{
	OpDescsObject *self;
	PyObject *seq, *item, *v;
	Py_ssize_t i, n;
	uint64_t f[3];
	int k, rc;

	seq = PySequence_Fast(seq_o, "op_descs must be a sequence of TransferOpDesc, an OpDescs, "
			      "an (n, 3) integer array or three integer arrays");
	if (!seq)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	self = opdescs_alloc(n);
	if (!self) {
		Py_DECREF(seq);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		item = PySequence_Fast_GET_ITEM(seq, i);
		for (k = 0; k < 3; k++) {
			v = PyObject_GetAttr(item, k == 0 ? s_local_addr : k == 1 ? s_remote_addr : s_len);
			if (!v && PyErr_ExceptionMatches(PyExc_AttributeError)) {
				PyErr_Format(PyExc_TypeError, "op_descs[%zd]: expected a TransferOpDesc, got %.80s",
					     i, Py_TYPE(item)->tp_name);
			}
			rc = v ? addr_of(v, &f[k]) : -1;
			Py_XDECREF(v);
			if (rc) {
				Py_DECREF(seq);
				Py_DECREF(self);
				return NULL;
			}
		}
		self->d[i].local_addr = f[0];
		self->d[i].remote_addr = f[1];
		self->d[i].len = f[2];
	}
	Py_DECREF(seq);
	return self;
}

/* a tuple of three objects with the buffer protocol: three arrays */
static int is_three_arrays(PyObject *o)
{
	Py_ssize_t k;

	if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 3)
		return 0;
	for (k = 0; k < 3; k++)
		if (!PyObject_CheckBuffer(PyTuple_GET_ITEM(o, k)))
			return 0;
	return 1;
}

/*
 * What transfer_sync()/transfer_async() were given, as an OpDescs (a new
 * reference; NULL with an exception): an OpDescs itself, an (n, 3) integer
 * array, a tuple of three integer arrays, or a sequence of TransferOpDesc.
 */
OpDescsObject *descs_from(PyObject *o)
{
	if (PyObject_TypeCheck(o, &OpDescsType))
		return (OpDescsObject *)Py_NewRef(o);
	if (PyObject_CheckBuffer(o) && !PyBytes_Check(o) && !PyByteArray_Check(o))
		return opdescs_from_buffer(o);
	if (is_three_arrays(o))
		return opdescs_from_arrays(PyTuple_GET_ITEM(o, 0), PyTuple_GET_ITEM(o, 1),
					   PyTuple_GET_ITEM(o, 2));
	return opdescs_from_objects(o);
}

static PyObject *opdescs_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "descs", NULL };
	PyObject *o;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:OpDescs", kwlist, &o))
		return NULL;
	return (PyObject *)descs_from(o);
}

static PyObject *opdescs_from_arrays_m(PyObject *cls, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "local_addrs", "remote_addrs", "lens", NULL };
	PyObject *l, *r, *n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:from_arrays", kwlist, &l, &r, &n))
		return NULL;
	return (PyObject *)opdescs_from_arrays(l, r, n);
}

/*
 * from_blocks(local_base, remote_base, block_size, local_ids, remote_ids=None,
 *             block_len=None): one descriptor per (base, id) pair, bases
 * major: local_base[j] + local_ids[i] * block_size -> remote_base[j] +
 * remote_ids[i] * block_size, block_len bytes (default block_size).
 */
static PyObject *opdescs_from_blocks(PyObject *cls, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "local_base", "remote_base", "block_size", "local_ids",
				  "remote_ids", "block_len", NULL };
	PyObject *lb_o, *rb_o, *bs_o, *li_o, *ri_o = Py_None, *bl_o = Py_None;
	IntVec lb, rb, li, ri;
	OpDescsObject *self = NULL;
	unsigned long long bs, bl;
	uint64_t maxl, maxr;
	Py_ssize_t nb, nid, j, i;
	int opened = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|OO:from_blocks", kwlist, &lb_o, &rb_o,
					 &bs_o, &li_o, &ri_o, &bl_o))
		return NULL;
	bs = PyLong_AsUnsignedLongLong(bs_o);
	if (bs == (unsigned long long)-1 && PyErr_Occurred())
		return NULL;
	bl = bs;
	if (bl_o != Py_None) {
		bl = PyLong_AsUnsignedLongLong(bl_o);
		if (bl == (unsigned long long)-1 && PyErr_Occurred())
			return NULL;
	}
	if (bs == 0 || bl == 0 || bl > bs) {
		PyErr_Format(PyExc_ValueError, "from_blocks: block_size %llu and block_len %llu: "
			     "need 0 < block_len <= block_size", bs, bl);
		return NULL;
	}
	if (intvec_open(&lb, lb_o, "local_base", 1))
		return NULL;
	opened = 1;
	if (intvec_open(&rb, rb_o, "remote_base", 1))
		goto out;
	opened = 2;
	if (intvec_open(&li, li_o, "local_ids", 0))
		goto out;
	opened = 3;
	if (intvec_open(&ri, ri_o == Py_None ? li_o : ri_o, "remote_ids", 0))
		goto out;
	opened = 4;
	nb = lb.n < 0 ? 1 : lb.n;
	if ((rb.n < 0 ? 1 : rb.n) != nb || (lb.n < 0) != (rb.n < 0)) {
		PyErr_Format(PyExc_ValueError, "from_blocks: local_base and remote_base must both "
			     "be ints or both arrays of the same length (%zd, %zd)", lb.n, rb.n);
		goto out;
	}
	nid = li.n;
	if (ri.n != nid) {
		PyErr_Format(PyExc_ValueError, "from_blocks: local_ids has %zd ids, remote_ids %zd",
			     nid, ri.n);
		goto out;
	}
	if (nb && nid > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(struct hixl_op_desc) / nb) {
		PyErr_NoMemory();
		goto out;
	}
	self = opdescs_alloc(nb * nid);
	if (!self || !nb)
		goto out;
	/* the ids' byte offsets once (into the first layer's rows), then
	 * every layer's rows from them */
	for (i = 0; i < nid; i++) {
		uint64_t l, r;

		if (intvec_get(&li, i, &l) || intvec_get(&ri, i, &r))
			goto bad;
		if (l > UINT64_MAX / bs || r > UINT64_MAX / bs)
			goto overflow;
		self->d[i].local_addr = l * bs;
		self->d[i].remote_addr = r * bs;
	}
	maxl = maxr = 0;
	for (i = 0; i < nid; i++) {
		if (self->d[i].local_addr > maxl)
			maxl = self->d[i].local_addr;
		if (self->d[i].remote_addr > maxr)
			maxr = self->d[i].remote_addr;
	}
	for (j = nb - 1; j >= 0; j--) {		/* row 0's offsets are read last */
		uint64_t lbase, rbase;

		if (intvec_get(&lb, j, &lbase) || intvec_get(&rb, j, &rbase))
			goto bad;
		if (maxl > UINT64_MAX - lbase || maxr > UINT64_MAX - rbase)
			goto overflow;
		for (i = 0; i < nid; i++) {
			struct hixl_op_desc *d = &self->d[j * nid + i];

			d->local_addr = lbase + self->d[i].local_addr;
			d->remote_addr = rbase + self->d[i].remote_addr;
			d->len = bl;
		}
	}
	goto out;
overflow:
	PyErr_SetString(PyExc_OverflowError, "from_blocks: a block address overflows 64 bits");
bad:
	Py_CLEAR(self);
out:
	if (opened > 0) intvec_release(&lb);
	if (opened > 1) intvec_release(&rb);
	if (opened > 2) intvec_release(&li);
	if (opened > 3) intvec_release(&ri);
	return (PyObject *)self;
}

static Py_ssize_t opdescs_len(OpDescsObject *self)
{
	return self->n;
}

static PyObject *opdescs_item(OpDescsObject *self, Py_ssize_t i)
{
	if (i < 0 || i >= self->n) {
		PyErr_SetString(PyExc_IndexError, "OpDescs index out of range");
		return NULL;
	}
	return Py_BuildValue("(KKK)", (unsigned long long)self->d[i].local_addr,
			     (unsigned long long)self->d[i].remote_addr,
			     (unsigned long long)self->d[i].len);
}

static PyObject *opdescs_nbytes(OpDescsObject *self, void *unused)
{
	unsigned long long sum = 0;
	Py_ssize_t i;

	for (i = 0; i < self->n; i++)
		sum += self->d[i].len;
	return PyLong_FromUnsignedLongLong(sum);
}

static PyObject *opdescs_repr(OpDescsObject *self)
{
	return PyUnicode_FromFormat("<hixl.OpDescs of %zd descriptors%s>", self->n,
				    self->held ? ", in place" : "");
}

static PyMethodDef opdescs_methods[] = {
	{ "from_arrays", (PyCFunction)(void (*)(void))opdescs_from_arrays_m,
	  METH_VARARGS | METH_KEYWORDS | METH_CLASS,
	  "from_arrays(local_addrs, remote_addrs, lens) -> OpDescs\n\n"
	  "Three equal-length 1-D integer arrays (numpy, array.array, memoryview: any\n"
	  "buffer of integers, strided too) or sequences of ints; lens may be one int\n"
	  "for all.  Raises ValueError for different lengths or a negative value,\n"
	  "TypeError for non-integer arrays." },
	{ "from_blocks", (PyCFunction)(void (*)(void))opdescs_from_blocks,
	  METH_VARARGS | METH_KEYWORDS | METH_CLASS,
	  "from_blocks(local_base, remote_base, block_size, local_ids, remote_ids=None,\n"
	  "            block_len=None) -> OpDescs\n\n"
	  "Blocks of registered regions by id (a paged KV cache): descriptor j*len(ids)+i\n"
	  "moves block_len bytes (default block_size) from local_base[j] + local_ids[i] *\n"
	  "block_size to remote_base[j] + remote_ids[i] * block_size.  The bases are two\n"
	  "ints (one region each side) or two equal-length integer arrays (one region per\n"
	  "layer); the ids integer arrays or sequences (remote_ids defaults to local_ids).\n"
	  "Raises ValueError for mismatched lengths, block_len 0 or > block_size, negative\n"
	  "values; OverflowError when an address overflows 64 bits." },
	{ NULL }
};

static PyGetSetDef opdescs_getset[] = {
	{ "nbytes", (getter)opdescs_nbytes, NULL, "the bytes the descriptors move, summed", NULL },
	{ NULL }
};

static PySequenceMethods opdescs_as_sequence = {
	.sq_length = (lenfunc)opdescs_len,
	.sq_item = (ssizeargfunc)opdescs_item,
};

PyTypeObject OpDescsType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "hixl.OpDescs",
	.tp_doc = "OpDescs(descs): a batch of transfer descriptors as one C array\n"
		  "(struct hixl_op_desc: local_addr, remote_addr, len), what transfer_sync()\n"
		  "and transfer_async() take without per-descriptor Python work.\n\n"
		  "descs  an (n, 3) integer array (rows local_addr, remote_addr, len in bytes)\n"
		  "       or a flat (3n,) one: a C-contiguous array of 8-byte integers is used in\n"
		  "       place (its export is held: it cannot be resized meanwhile; later\n"
		  "       writes to it change the descriptors), others are copied; or a tuple of\n"
		  "       three integer arrays (as from_arrays()); or a sequence of\n"
		  "       TransferOpDesc (copied).\n"
		  "Also from_arrays() and from_blocks().  len(d), d[i] -> (local, remote, len),\n"
		  "d.nbytes.  Raises TypeError for non-integer arrays, ValueError for another\n"
		  "shape or a negative value.",
	.tp_basicsize = sizeof(OpDescsObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = opdescs_new,
	.tp_dealloc = (destructor)opdescs_dealloc,
	.tp_methods = opdescs_methods,
	.tp_getset = opdescs_getset,
	.tp_as_sequence = &opdescs_as_sequence,
	.tp_repr = (reprfunc)opdescs_repr,
};
