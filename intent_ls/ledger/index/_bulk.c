/* The cold build's rows, written by C: an optional accelerator of intent_ls.ledger.index.

Why C: at a million records the Python that turns a decoded record into rows (~3.4 us a
record) and binding its 24 values through the sqlite3 module (~0.1 us a value) were half
of the build's CPU. Here each line is still decoded by the same msgspec decoder; the
fields are read from its structs, paths and names looked up in the same dict of ids, and
the rows bound straight to SQLite in the multi-row INSERTs of schema.py.

The answer must be exactly that of fastpath._emit. Anything this file does not handle
the same way for certain, it leaves to Python, a line at a time: Writer.block stops
before such a line and says where; Python reads it and hands its rows back (Writer.rows).
That covers a line with a backslash or that is not strict UTF-8, a line msgspec fails on
(or raises ValueError or RecursionError for), a hash whose 16 key digits are not plain
hex, a text that is not ASCII where a key is read from it.

The writer opens its own connection to a cache file that a cold build has just created
and that nobody else reads; the Python connection to it stays idle meanwhile. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <sqlite3.h>
#include <structmember.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#define RECORDS 0
#define TOUCHES 1
static const int WIDTH[2] = {9, 5};
#define KEY_START 7 /* len("sha256:") */
#define SITES 23 /* the places emit() reads a field */
#define KEY_DIGITS 16

enum { V_NULL, V_INT, V_TEXT };

typedef struct {
    PyObject *text; /* strong reference for V_TEXT */
    sqlite3_int64 i;
    int kind;
} Val;

typedef struct {
    Val *vals;
    Py_ssize_t n, cap;
} Buf;

/* Where a field of a decoded struct lives: msgspec stores fields as slots, read through
   member descriptors; reading the slot directly saves the attribute lookup (~5% of a
   build). ``offset`` -1: this type's field is read through getattr. */
typedef struct {
    PyTypeObject *type;
    Py_ssize_t offset;
} Site;

typedef struct {
    PyObject **items;
    Py_ssize_t n, cap;
} Held;

typedef struct {
    PyObject_HEAD
    sqlite3 *db;
    sqlite3_stmt *group[2]; /* schema.py's INSERT of ``group_rows`` rows, per table */
    sqlite3_stmt *single[2];
    int group_rows[2];
    Buf buf[2];
    PyObject *urn;
    PyObject *file_row;
    PyObject *ids;
    PyObject *miss;
    Held held;
    Site sites[SITES];
    int busy; /* in a call: ``miss`` or ``decode`` calling back into it is refused */
} Writer;

static PyObject *Error; /* sqlite3.OperationalError */

static PyObject *s_files, *s_metadata, *s_intent_ls, *s_intent_id, *s_path, *s_conversations,
    *s_contributor, *s_type, *s_model_id, *s_related, *s_url, *s_ranges, *s_content_hash,
    *s_ast_nodes, *s_name, *s_kind, *s_digest, *s_mutation_class, *s_timestamp,
    *s_specification;

static int db_error(Writer *w) {
    PyErr_SetString(Error, w->db ? sqlite3_errmsg(w->db) : "the index writer is closed");
    return -1;
}

/* Values -------------------------------------------------------------------------- */

static int buf_push(Buf *b, Val v) {
    if (b->n == b->cap) {
        Py_ssize_t cap = b->cap ? b->cap * 2 : 4096;
        Val *vals = PyMem_Realloc(b->vals, (size_t)cap * sizeof(Val));
        if (!vals) {
            if (v.kind == V_TEXT) Py_DECREF(v.text);
            PyErr_NoMemory();
            return -1;
        }
        b->vals = vals;
        b->cap = cap;
    }
    b->vals[b->n++] = v;
    return 0;
}

static void buf_cut(Buf *b, Py_ssize_t n) {
    while (b->n > n) {
        Val *v = &b->vals[--b->n];
        if (v->kind == V_TEXT) Py_CLEAR(v->text);
    }
}

static Val v_null(void) { return (Val){NULL, 0, V_NULL}; }
static Val v_int(sqlite3_int64 i) { return (Val){NULL, i, V_INT}; }

/* A text or None (the decoder's ``str | None`` fields): 1, or 0 for anything else. */
static int v_text(PyObject *o, Val *out) {
    if (o == Py_None) {
        *out = v_null();
        return 1;
    }
    if (!PyUnicode_CheckExact(o)) return 0;
    Py_INCREF(o);
    *out = (Val){o, 0, V_TEXT};
    return 1;
}

/* Objects read for one line, released when it is done. */
static PyObject *hold(Writer *w, PyObject *o) {
    if (!o) return NULL;
    Held *h = &w->held;
    if (h->n == h->cap) {
        Py_ssize_t cap = h->cap ? h->cap * 2 : 64;
        PyObject **items = PyMem_Realloc(h->items, (size_t)cap * sizeof(PyObject *));
        if (!items) {
            Py_DECREF(o);
            PyErr_NoMemory();
            return NULL;
        }
        h->items = items;
        h->cap = cap;
    }
    h->items[h->n++] = o;
    return o;
}

static void release_held(Writer *w) {
    while (w->held.n) Py_DECREF(w->held.items[--w->held.n]);
}

static PyObject *attr(Writer *w, PyObject *o, PyObject *name) {
    return hold(w, PyObject_GetAttr(o, name));
}

/* Learns where ``type`` keeps the field ``name``: the slot of an object member
   descriptor, else -1. */
static void learn(Site *site, PyTypeObject *type, PyObject *name) {
    Py_XSETREF(site->type, (PyTypeObject *)Py_NewRef(type));
    site->offset = -1;
    PyObject *descr = PyObject_GetAttr((PyObject *)type, name);
    if (!descr) {
        PyErr_Clear();
        return;
    }
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type == T_OBJECT_EX && member->offset > 0) site->offset = member->offset;
    }
    Py_DECREF(descr);
}

/* The field ``name`` of ``o``, a reference borrowed from ``o`` (or held for the line). */
static PyObject *field(Writer *w, int at, PyObject *o, PyObject *name) {
    Site *site = &w->sites[at];
    if (Py_TYPE(o) != site->type) learn(site, Py_TYPE(o), name);
    if (site->offset > 0) {
        PyObject *value = *(PyObject **)((char *)o + site->offset);
        if (value) return value;
    }
    return attr(w, o, name);
}

/* SQLite -------------------------------------------------------------------------- */

static int bind_step(Writer *w, sqlite3_stmt *st, Val *vals, int count) {
    for (int i = 0; i < count; i++) {
        int rc;
        Val *v = &vals[i];
        if (v->kind == V_INT) {
            rc = sqlite3_bind_int64(st, i + 1, v->i);
        } else if (v->kind == V_TEXT) {
            Py_ssize_t size;
            const char *utf8 = PyUnicode_AsUTF8AndSize(v->text, &size);
            if (!utf8) {
                sqlite3_reset(st);
                return -1;
            }
            if (size > INT_MAX) {
                sqlite3_reset(st);
                PyErr_SetString(PyExc_OverflowError, "a text longer than SQLite takes");
                return -1;
            }
            rc = sqlite3_bind_text(st, i + 1, utf8, (int)size, SQLITE_STATIC);
        } else {
            rc = sqlite3_bind_null(st, i + 1);
        }
        if (rc != SQLITE_OK) {
            sqlite3_reset(st);
            return db_error(w);
        }
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : db_error(w);
}

/* Inserts the buffered rows of a table in groups; with ``all``, the rest one by one.
   The rows inserted leave the buffer even when a later insert fails. */
static int flush_table(Writer *w, int t, int all) {
    Buf *b = &w->buf[t];
    int width = WIDTH[t], failed = 0;
    Py_ssize_t rows = b->n / width, done = 0;
    int group = w->group_rows[t];
    while (!failed && rows - done >= group) {
        if (bind_step(w, w->group[t], b->vals + done * width, width * group) < 0) failed = 1;
        else done += group;
    }
    while (all && !failed && done < rows) {
        if (bind_step(w, w->single[t], b->vals + done * width, width) < 0) failed = 1;
        else done++;
    }
    Py_ssize_t used = done * width;
    if (!used) return failed ? -1 : 0;
    for (Py_ssize_t i = 0; i < used; i++)
        if (b->vals[i].kind == V_TEXT) Py_CLEAR(b->vals[i].text);
    memmove(b->vals, b->vals + used, (size_t)(b->n - used) * sizeof(Val));
    b->n -= used;
    return failed ? -1 : 0;
}

static int flush(Writer *w, int all) {
    return flush_table(w, RECORDS, all) < 0 || flush_table(w, TOUCHES, all) < 0 ? -1 : 0;
}

/* One of schema.py's INSERT statements for table ``t``; ``rows`` gets how many rows it
   takes (ValueError unless its parameters are whole rows of this table). */
static sqlite3_stmt *prepare_insert(Writer *w, int t, const char *sql, int *rows) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK) {
        db_error(w);
        sqlite3_finalize(st);
        return NULL;
    }
    int count = sqlite3_bind_parameter_count(st);
    if (count == 0 || count % WIDTH[t]) {
        sqlite3_finalize(st);
        PyErr_Format(PyExc_ValueError, "not rows of %d values: %s", WIDTH[t], sql);
        return NULL;
    }
    *rows = count / WIDTH[t];
    return st;
}

static void close_db(Writer *w) {
    for (int t = 0; t < 2; t++) {
        sqlite3_finalize(w->group[t]);
        sqlite3_finalize(w->single[t]);
        w->group[t] = w->single[t] = NULL;
    }
    if (w->db) sqlite3_close(w->db);
    w->db = NULL;
}

/* One record ---------------------------------------------------------------------- */

/* The id of a path or name (None stays None): the ids dict, else ``miss(text)``. */
static int text_id(Writer *w, PyObject *text, Val *out) {
    if (text == Py_None) {
        *out = v_null();
        return 1;
    }
    if (!PyUnicode_CheckExact(text)) return 0;
    PyObject *id = PyDict_GetItemWithError(w->ids, text);
    if (!id) {
        if (PyErr_Occurred()) return -1;
        id = hold(w, PyObject_CallOneArg(w->miss, text));
        if (!id) return -1;
    }
    long long value = PyLong_AsLongLong(id);
    if (value == -1 && PyErr_Occurred()) return -1;
    *out = v_int(value);
    return 1;
}

static int hex_value(const unsigned char *s, uint64_t *out, int lower_only) {
    uint64_t v = 0;
    for (int i = 0; i < KEY_DIGITS; i++) {
        unsigned char c = s[i];
        int d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (!lower_only && c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return 0;
        v = (v << 4) | (uint64_t)d;
    }
    *out = v;
    return 1;
}

/* ``hash_key(digest) if digest else None``: its 16 digits after "sha256:", as a signed
   64-bit integer; 0 (left to Python) unless they are plain hex in an ASCII text. */
static int content_key(PyObject *digest, Val *out) {
    if (digest == Py_None) {
        *out = v_null();
        return 1;
    }
    if (!PyUnicode_CheckExact(digest) || !PyUnicode_IS_ASCII(digest)) return 0;
    Py_ssize_t n = PyUnicode_GET_LENGTH(digest);
    if (n == 0) {
        *out = v_null();
        return 1;
    }
    uint64_t v;
    if (n < KEY_START + KEY_DIGITS || !hex_value(PyUnicode_1BYTE_DATA(digest) + KEY_START, &v, 0))
        return 0;
    *out = v_int((sqlite3_int64)v);
    return 1;
}

/* The line key: the record's digest's key if it starts "sha256:" and 16 lower-case hex
   digits, else None. */
static int line_key(PyObject *digest, Val *out) {
    *out = v_null();
    if (digest == Py_None) return 1;
    if (!PyUnicode_CheckExact(digest) || !PyUnicode_IS_ASCII(digest)) return 0;
    const unsigned char *s = PyUnicode_1BYTE_DATA(digest);
    uint64_t v;
    if (PyUnicode_GET_LENGTH(digest) >= KEY_START + KEY_DIGITS &&
        memcmp(s, "sha256:", KEY_START) == 0 && hex_value(s + KEY_START, &v, 1))
        *out = v_int((sqlite3_int64)v);
    return 1;
}

static int truthy_text(PyObject *o) { return o != Py_None && PyUnicode_GET_LENGTH(o) > 0; }

/* A list field, or None for an absent one (``x or ()``); 0 for anything else. */
static int as_list(PyObject *o, PyObject **out) {
    if (o == Py_None) {
        *out = NULL;
        return 1;
    }
    if (!PyList_CheckExact(o)) return 0;
    *out = o;
    return 1;
}

#define TRY(expr)                     \
    do {                              \
        int _r = (expr);              \
        if (_r <= 0) return _r;       \
    } while (0)
#define GET(var, obj, name, site)                    \
    do {                                             \
        if (!((var) = field(w, (site), (obj), (name)))) \
            return -1;                               \
    } while (0)

static int touch(Writer *w, Val seq, Val pid, Val nid, Val nkind, Val key) {
    Buf *b = &w->buf[TOUCHES];
    Val row[5] = {seq, pid, nid, nkind, key};
    for (int i = 0; i < 5; i++)
        if (buf_push(b, row[i]) < 0) {
            for (int j = i + 1; j < 5; j++)
                if (row[j].kind == V_TEXT) Py_DECREF(row[j].text);
            return -1;
        }
    return 1;
}

/* fastpath._emit and the helpers it calls (_file_touches, _related_intent), statement for
   statement, in one function; a record whose metadata names no intent gets one from its
   conversations' links here in the loop over them, there in a second walk after it (the
   same links in the same order, so the same intent). 1 done, 0 left to Python, -1 error. */
static int emit(Writer *w, PyObject *record, long long seq_no, long long offset) {
    PyObject *metadata, *meta, *intent, *ctype = Py_None, *model = Py_None, *files;
    Val seq = v_int(seq_no);
    GET(metadata, record, s_metadata, 0);
    GET(meta, metadata, s_intent_ls, 1);
    GET(intent, meta, s_intent_id, 2);
    PyObject *value;
    GET(value, record, s_files, 3);
    TRY(as_list(value, &files));
    long long count = 0;
    for (Py_ssize_t f = 0; files && f < PyList_GET_SIZE(files); f++) {
        PyObject *file = PyList_GET_ITEM(files, f), *path, *convs;
        GET(path, file, s_path, 4);
        Val pid;
        TRY(text_id(w, path, &pid));
        long long ranged = count;
        GET(value, file, s_conversations, 5);
        TRY(as_list(value, &convs));
        for (Py_ssize_t c = 0; convs && c < PyList_GET_SIZE(convs); c++) {
            PyObject *conv = PyList_GET_ITEM(convs, c), *contributor, *list;
            GET(contributor, conv, s_contributor, 6);
            if (contributor == Py_None) { /* extract_rows reads it as {}: "" becomes None */
                if (!truthy_text(ctype)) ctype = Py_None;
                if (!truthy_text(model)) model = Py_None;
            } else {
                PyObject *type, *model_id;
                GET(type, contributor, s_type, 7);
                GET(model_id, contributor, s_model_id, 8);
                if ((type != Py_None && !PyUnicode_CheckExact(type)) ||
                    (model_id != Py_None && !PyUnicode_CheckExact(model_id)))
                    return 0;
                if (!truthy_text(ctype)) ctype = type;
                if (!truthy_text(model)) model = model_id;
            }
            if (intent == Py_None) {
                GET(value, conv, s_related, 9);
                TRY(as_list(value, &list));
                for (Py_ssize_t r = 0; list && r < PyList_GET_SIZE(list); r++) {
                    PyObject *rel = PyList_GET_ITEM(list, r), *type, *url;
                    GET(type, rel, s_type, 10);
                    GET(url, rel, s_url, 11);
                    if (!PyUnicode_CheckExact(url) ||
                        (type != Py_None && !PyUnicode_CheckExact(type)))
                        return 0;
                    if (type == Py_None || PyUnicode_Compare(type, s_specification) != 0)
                        continue;
                    Py_ssize_t match = PyUnicode_Tailmatch(url, w->urn, 0, PY_SSIZE_T_MAX, -1);
                    if (match < 0) return -1;
                    if (match) {
                        intent = hold(w, PyUnicode_Substring(url, PyUnicode_GET_LENGTH(w->urn),
                                                             PY_SSIZE_T_MAX));
                        if (!intent) return -1;
                    }
                }
            }
            GET(value, conv, s_ranges, 12);
            TRY(as_list(value, &list));
            for (Py_ssize_t r = 0; list && r < PyList_GET_SIZE(list); r++) {
                PyObject *digest;
                GET(digest, PyList_GET_ITEM(list, r), s_content_hash, 13);
                Val key;
                TRY(content_key(digest, &key));
                count++;
                TRY(touch(w, seq, pid, v_null(), v_null(), key));
            }
        }
        if (count == ranged && path != Py_None) {
            Py_INCREF(w->file_row);
            TRY(touch(w, seq, pid, v_null(), (Val){w->file_row, 0, V_TEXT}, v_null()));
        }
    }
    PyObject *nodes;
    GET(value, meta, s_ast_nodes, 14);
    TRY(as_list(value, &nodes));
    for (Py_ssize_t i = 0; nodes && i < PyList_GET_SIZE(nodes); i++) {
        PyObject *node = PyList_GET_ITEM(nodes, i), *path, *name, *digest, *kind;
        GET(path, node, s_path, 15);
        GET(name, node, s_name, 16);
        GET(digest, node, s_content_hash, 17);
        GET(kind, node, s_kind, 18);
        Val pid, nid, key, nkind;
        TRY(text_id(w, path, &pid));
        TRY(text_id(w, name, &nid));
        TRY(content_key(digest, &key));
        TRY(v_text(kind, &nkind));
        TRY(touch(w, seq, pid, nid, nkind, key));
    }
    PyObject *digest, *timestamp, *mclass, *kind;
    GET(digest, meta, s_digest, 19);
    GET(timestamp, record, s_timestamp, 20);
    GET(mclass, meta, s_mutation_class, 21);
    GET(kind, meta, s_kind, 22);
    Val row[9] = {seq, v_int(offset)};
    TRY(line_key(digest, &row[8]));
    PyObject *texts[6] = {timestamp, intent, ctype, model, mclass, kind};
    for (int i = 0; i < 6; i++)
        if (!v_text(texts[i], &row[2 + i])) {
            for (int j = 2; j < 2 + i; j++)
                if (row[j].kind == V_TEXT) Py_DECREF(row[j].text);
            return 0;
        }
    for (int i = 0; i < 9; i++)
        if (buf_push(&w->buf[RECORDS], row[i]) < 0) {
            for (int j = i + 1; j < 9; j++)
                if (row[j].kind == V_TEXT) Py_DECREF(row[j].text);
            return -1;
        }
    return 1;
}

/* The Writer type ----------------------------------------------------------------- */

static int idle(Writer *w) {
    if (!w->busy) return 1;
    PyErr_SetString(PyExc_RuntimeError, "the index writer is called back into");
    return 0;
}

static int ready(Writer *w) {
    if (!idle(w)) return 0;
    if (w->db) return 1;
    db_error(w);
    return 0;
}

static PyObject *Writer_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"path", "urn", "file_row", "ids", "miss", "inserts", NULL};
    PyObject *path, *urn, *file_row, *ids, *miss;
    const char *sql[2][2];
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&UUO!O((ss)(ss)):Writer", kwlist,
                                     PyUnicode_FSConverter, &path, &urn, &file_row, &PyDict_Type,
                                     &ids, &miss, &sql[0][0], &sql[0][1], &sql[1][0], &sql[1][1]))
        return NULL;
    Writer *w = (Writer *)type->tp_alloc(type, 0);
    if (!w) {
        Py_DECREF(path);
        return NULL;
    }
    w->urn = Py_NewRef(urn);
    w->file_row = Py_NewRef(file_row);
    w->ids = Py_NewRef(ids);
    w->miss = Py_NewRef(miss);
    int rc = sqlite3_open_v2(PyBytes_AS_STRING(path), &w->db, SQLITE_OPEN_READWRITE, NULL);
    Py_DECREF(path);
    if (rc != SQLITE_OK ||
        sqlite3_exec(w->db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN", NULL, NULL,
                     NULL) != SQLITE_OK) {
        db_error(w);
        Py_DECREF(w);
        return NULL;
    }
    for (int t = 0; t < 2; t++) {
        int one = 0;
        if (!(w->group[t] = prepare_insert(w, t, sql[t][0], &w->group_rows[t])) ||
            !(w->single[t] = prepare_insert(w, t, sql[t][1], &one))) {
            Py_DECREF(w);
            return NULL;
        }
        if (one != 1) {
            PyErr_Format(PyExc_ValueError, "not one row: %s", sql[t][1]);
            Py_DECREF(w);
            return NULL;
        }
    }
    return (PyObject *)w;
}

static void Writer_dealloc(Writer *w) {
    close_db(w);
    for (int t = 0; t < 2; t++) {
        buf_cut(&w->buf[t], 0);
        PyMem_Free(w->buf[t].vals);
    }
    release_held(w);
    PyMem_Free(w->held.items);
    for (int i = 0; i < SITES; i++) Py_CLEAR(w->sites[i].type);
    Py_XDECREF(w->urn);
    Py_XDECREF(w->file_row);
    Py_XDECREF(w->ids);
    Py_XDECREF(w->miss);
    Py_TYPE(w)->tp_free((PyObject *)w);
}

/* The length of the UTF-8 sequence at ``s`` (before ``end``) that Python's strict decoder
   takes: none overlong, no surrogate, nothing past U+10FFFF, none cut short; 0 if not. */
static int utf8_char(const unsigned char *s, const unsigned char *end) {
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    int n;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else return 0;
    if (end - s < n || s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

/* No backslash and strict UTF-8: what msgspec reads exactly as json.loads does
   (fastpath._plain; msgspec does not check the strings it skips). */
static int plain(const unsigned char *s, Py_ssize_t n) {
    if (memchr(s, '\\', (size_t)n)) return 0;
    unsigned char high = 0;
    for (Py_ssize_t i = 0; i < n; i++) high |= s[i];
    if (high < 0x80) return 1;
    const unsigned char *end = s + n;
    while (s < end) {
        if (*s < 0x80) {
            s++;
            continue;
        }
        int len = utf8_char(s, end);
        if (!len) return 0;
        s += len;
    }
    return 1;
}

PyDoc_STRVAR(block_doc,
             "block(block, pos, base, seq, decode, errors) -> (seq, pos, end)\n\n"
             "Writes the rows of the lines of ``block`` (complete lines at byte ``base`` of the "
             "ledger) from ``pos``, numbered after ``seq``; stops at the end, or at a line left "
             "to Python, from ``pos`` to ``end`` (after its newline). ``errors``: the exceptions "
             "of ``decode`` that leave a line to Python. ``decode`` is given a view of the "
             "block's memory, valid during the call only: it must not keep it (msgspec's typed "
             "decoder copies what it keeps).");

static PyObject *Writer_block(Writer *w, PyObject *args) {
    PyObject *decode, *errors;
    Py_buffer view;
    Py_ssize_t pos, end = 0;
    long long base, seq;
    if (!PyArg_ParseTuple(args, "y*nLLOO:block", &view, &pos, &base, &seq, &decode, &errors))
        return NULL;
    if (!ready(w)) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const unsigned char *data = view.buf;
    Py_ssize_t size = view.len;
    if (pos < 0 || pos > size) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "position %zd outside a block of %zd", pos, size);
    }
    int failed = 0;
    w->busy = 1;
    /* Each line is looked at once: a test of the whole block, repeated after each line
       left to Python, went over a block of such lines quadratically. */
    while (pos < size) {
        const unsigned char *nl = memchr(data + pos, '\n', (size_t)(size - pos));
        end = nl ? nl - data : size;
        if (!plain(data + pos, end - pos)) break;
        Py_ssize_t marks[2] = {w->buf[0].n, w->buf[1].n};
        PyObject *line = PyMemoryView_FromMemory((char *)data + pos, end - pos, PyBUF_READ);
        PyObject *record = line ? PyObject_CallOneArg(decode, line) : NULL;
        Py_XDECREF(line);
        int r;
        if (!record) {
            r = line && PyErr_ExceptionMatches(errors) ? 0 : -1;
            if (!r) PyErr_Clear();
        } else {
            r = emit(w, record, seq + 1, base + pos);
            Py_DECREF(record);
        }
        release_held(w);
        if (r <= 0) {
            buf_cut(&w->buf[0], marks[0]);
            buf_cut(&w->buf[1], marks[1]);
            failed = r < 0;
            break;
        }
        seq++;
        pos = end + 1;
        if ((w->buf[TOUCHES].n >= w->group_rows[TOUCHES] * WIDTH[TOUCHES] * 8 ||
             w->buf[RECORDS].n >= w->group_rows[RECORDS] * WIDTH[RECORDS] * 8) &&
            flush(w, 0) < 0) {
            failed = 1;
            break;
        }
    }
    w->busy = 0;
    PyBuffer_Release(&view);
    if (failed) return NULL;
    return Py_BuildValue("(Lnn)", seq, pos, pos < size ? end + 1 : pos);
}

/* A Python value of a row: None, an int (64 bits), a str. */
static int push_value(Buf *b, PyObject *o) {
    if (o == Py_None) return buf_push(b, v_null());
    if (PyLong_Check(o)) {
        long long value = PyLong_AsLongLong(o);
        if (value == -1 && PyErr_Occurred()) return -1;
        return buf_push(b, v_int(value));
    }
    if (PyUnicode_Check(o)) {
        if (!PyUnicode_AsUTF8AndSize(o, NULL)) return -1; /* a lone surrogate */
        return buf_push(b, (Val){Py_NewRef(o), 0, V_TEXT});
    }
    PyErr_Format(PyExc_TypeError, "a row value of type %.100s", Py_TYPE(o)->tp_name);
    return -1;
}

PyDoc_STRVAR(rows_doc, "rows(records, touches)\n\n"
                       "Writes rows made in Python (flat lists of column values) after those "
                       "written so far, and empties the lists.");

/* All or nothing: a value refused leaves the buffers and both lists as they were. */
static PyObject *Writer_rows(Writer *w, PyObject *args) {
    PyObject *lists[2];
    if (!PyArg_ParseTuple(args, "O!O!:rows", &PyList_Type, &lists[0], &PyList_Type, &lists[1]) ||
        !ready(w))
        return NULL;
    Py_ssize_t marks[2] = {w->buf[0].n, w->buf[1].n};
    for (int t = 0; t < 2; t++)
        if (PyList_GET_SIZE(lists[t]) % WIDTH[t])
            return PyErr_Format(PyExc_ValueError, "not whole rows of %d values", WIDTH[t]);
    for (int t = 0; t < 2; t++)
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lists[t]); i++)
            if (push_value(&w->buf[t], PyList_GET_ITEM(lists[t], i)) < 0) {
                buf_cut(&w->buf[0], marks[0]);
                buf_cut(&w->buf[1], marks[1]);
                return NULL;
            }
    for (int t = 0; t < 2; t++)
        if (PyList_SetSlice(lists[t], 0, PyList_GET_SIZE(lists[t]), NULL) < 0) return NULL;
    if (flush(w, 0) < 0) return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(close_doc, "close()\n\nWrites what is left, commits and closes the connection.");

static PyObject *Writer_close(Writer *w, PyObject *Py_UNUSED(ignored)) {
    if (!ready(w)) return NULL;
    if (flush(w, 1) < 0) return NULL;
    if (sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        db_error(w);
        return NULL;
    }
    close_db(w);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(abort_doc, "abort()\n\nCloses the connection without committing.");

static PyObject *Writer_abort(Writer *w, PyObject *Py_UNUSED(ignored)) {
    if (!idle(w)) return NULL;
    close_db(w);
    for (int t = 0; t < 2; t++) buf_cut(&w->buf[t], 0);
    Py_RETURN_NONE;
}

static PyMethodDef Writer_methods[] = {
    {"block", (PyCFunction)Writer_block, METH_VARARGS, block_doc},
    {"rows", (PyCFunction)Writer_rows, METH_VARARGS, rows_doc},
    {"close", (PyCFunction)Writer_close, METH_NOARGS, close_doc},
    {"abort", (PyCFunction)Writer_abort, METH_NOARGS, abort_doc},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject WriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "intent_ls.ledger.index._bulk.Writer",
    .tp_basicsize = sizeof(Writer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = PyDoc_STR("Writer(path, urn, file_row, ids, miss, inserts): a cold build's rows, "
                        "bound straight to SQLite in a connection of its own to ``path``; "
                        "``inserts``: ((a group of records, one record), (the same of touches)) "
                        "as INSERT statements."),
    .tp_new = Writer_new,
    .tp_dealloc = (destructor)Writer_dealloc,
    .tp_methods = Writer_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_bulk",
    .m_doc = "The cold build's rows, written by C (see intent_ls.ledger.index.native).",
    .m_size = -1,
};

static int intern(PyObject **slot, const char *text) {
    *slot = PyUnicode_InternFromString(text);
    return *slot ? 0 : -1;
}

PyMODINIT_FUNC PyInit__bulk(void) {
    const char *names[] = {"files", "metadata", "intent_ls", "intent_id", "path",
                           "conversations", "contributor", "type", "model_id", "related",
                           "url", "ranges", "content_hash", "ast_nodes", "name", "kind",
                           "digest", "mutation_class", "timestamp", "specification"};
    PyObject **slots[] = {&s_files, &s_metadata, &s_intent_ls, &s_intent_id, &s_path,
                          &s_conversations, &s_contributor, &s_type, &s_model_id, &s_related,
                          &s_url, &s_ranges, &s_content_hash, &s_ast_nodes, &s_name, &s_kind,
                          &s_digest, &s_mutation_class, &s_timestamp, &s_specification};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (intern(slots[i], names[i]) < 0) return NULL;
    PyObject *sqlite3_module = PyImport_ImportModule("sqlite3");
    if (!sqlite3_module) return NULL;
    Error = PyObject_GetAttrString(sqlite3_module, "OperationalError");
    Py_DECREF(sqlite3_module);
    if (!Error || PyType_Ready(&WriterType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "Writer", (PyObject *)&WriterType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
