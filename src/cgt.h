/*
** cgt.h: combinatorial game values (short partizan games) in canonical
** form, kept in a hash-consed store. Plain C11, no Lua, no globals: the
** store is an object and every function takes it.
** See docs/cgt.md for the notation and the theory used.
*/
#ifndef KN_CGT_H
#define KN_CGT_H

#include <stddef.h>
#include <stdint.h>

/*
** A game is an id into its store. Every stored game is in canonical form
** (no dominated option, no reversible option), so two ids of one store are
** equal exactly when the games are equal. Id 0 is the game 0 = { | }.
** CG_NONE reports a failure (out of memory, a number out of range).
*/
typedef uint32_t cg_id;
#define CG_NONE ((cg_id)0xFFFFFFFFu)
#define CG_ZERO ((cg_id)0)

typedef struct cg_store cg_store;

/* A dyadic rational num / 2^exp (exp >= 0; num odd when exp > 0). */
typedef struct cg_dyadic {
  int64_t num;
  int exp;
} cg_dyadic;

/* Outcome classes. */
enum { CG_P = 'P', CG_N = 'N', CG_L = 'L', CG_R = 'R' };

/* Results of cg_cmp. */
enum { CG_EQ = 0, CG_LT = 1, CG_GT = 2, CG_FUZZY = 3 };

cg_store *cg_store_new(void);
void cg_store_free(cg_store *s);
size_t cg_store_size(const cg_store *s); /* games stored */

/* ---- building games ---- */
/* The canonical form of { L[0..nl) | R[0..nr) }: any ids of 's'. */
cg_id cg_make(cg_store *s, const cg_id *L, int nl, const cg_id *R, int nr);
cg_id cg_integer(cg_store *s, int64_t n);         /* |n| <= 2^20 */
cg_id cg_number(cg_store *s, cg_dyadic x);        /* exp <= 40 */
cg_id cg_nimber(cg_store *s, int n);              /* 0 <= n <= 1023 */
cg_id cg_ups(cg_store *s, int n);                 /* n.^ (n < 0: downs) */
cg_id cg_neg(cg_store *s, cg_id a);
cg_id cg_add(cg_store *s, cg_id a, cg_id b);
cg_id cg_sub(cg_store *s, cg_id a, cg_id b);

/* ---- comparing ---- */
int cg_le(cg_store *s, cg_id a, cg_id b);         /* a <= b */
int cg_cmp(cg_store *s, cg_id a, cg_id b);        /* CG_EQ, CG_LT, ... */
int cg_outcome(cg_store *s, cg_id a);             /* 'L', 'R', 'N', 'P' */
/* Does the side to move win? left = 1: Left (Black) moves first. */
int cg_first_wins(cg_store *s, cg_id a, int left);

/* ---- looking inside ---- */
int cg_nleft(const cg_store *s, cg_id a);
int cg_nright(const cg_store *s, cg_id a);
cg_id cg_left(const cg_store *s, cg_id a, int i);
cg_id cg_right(const cg_store *s, cg_id a, int i);
int cg_is_number(const cg_store *s, cg_id a, cg_dyadic *x);
int cg_nimber_value(const cg_store *s, cg_id a); /* n for *n, else -1 */
/* a = x + n.^ + *m ? (|n| <= 16, m <= 15) Fills the parts when so. */
int cg_uptimal(cg_store *s, cg_id a, cg_dyadic *x, int *n, int *m);
/* Left and right stops, mean and temperature (as exact dyadic doubles).
** The temperature of a number m/2^k is -1/2^k (-1 for integers). */
double cg_left_stop(cg_store *s, cg_id a);
double cg_right_stop(cg_store *s, cg_id a);
int cg_mean_temp(cg_store *s, cg_id a, double *mean, double *temp);

/* ---- text ---- */
/*
** CGSuite's plain notation (docs/cgt.md): 0, 3, -2, 3/4, *, *2, ^, ^^,
** ^3, v, vv, v3, ^*, 1*, -1/2^, +-1, {1|0}, {2||1|0}, {1,*|0,-1}.
** Returns the length; the text is cut to fit 'len' (NUL-terminated).
*/
size_t cg_text(cg_store *s, cg_id a, char *buf, size_t len);
/* Parse that notation (also "{|}", "2+-1", and a leading "-"). Returns 0
** or -1 with a message in 'err' naming the character position. */
int cg_parse(cg_store *s, const char *text, cg_id *out, char *err,
             size_t errlen);
/* Dyadic text: "3", "-3/4". */
size_t cg_dyadic_text(cg_dyadic x, char *buf, size_t len);
/* The dyadic equal to double 'v' (exact for the doubles made here). */
cg_dyadic cg_dyadic_of(double v);

#endif
