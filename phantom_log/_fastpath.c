/*
 * phantom_log._fastpath: a fast "this record is wholly valid" check, in C.
 *
 * verify (phantom_log.check) is the authority: the JSON Schema through jsonschema, then
 * the rules engine (phantom_log.engine), with every problem worded. Most records of a big
 * corpus have no problem at all, and for them this module gives the same answer some
 * twenty times faster: check(record, sheets) walks a record as parsed by orjson, checks
 * it against the schema and replays it by the rules of RULES.md, and returns
 *
 *     (winner, notes, end_round, end_trick, keys)
 *
 * when the record is valid, finished, and every claim in it is right (winner 0 is the
 * Phantom, 1 Christine; keys is the number of object keys in the record, for the
 * duplicate-key check), or None for anything else: an unusual shape, any problem, an
 * unfinished game, a sheet object. None only means "not decided here": the caller then
 * runs the full check. So this code never words an error, and it may decline whatever is
 * rare; but it must never accept a record the full check would reject. Tests hold it to
 * that on simulated corpora, on every example, and on mutations of each kind.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define NOTES 12
#define TRICKS 10
#define NAME_MAX_LEN 200
#define COMMENT_MAX_LEN 2000

typedef struct {
    unsigned char owner[NOTES]; /* 0 Phantom, 1 Christine */
    unsigned char suit[NOTES];  /* 0 Mi, 1 Ch, 2 Ri, 3 Ma */
} Sheet;

typedef struct {
    Sheet sheet;
    int beginner;
    int balance;
    int notes;
    int over;          /* the Phantom completed the sheet */
    int end_round;
    int end_trick;
    int special;       /* the round's special number */
    unsigned int hand[2];
    Py_ssize_t tricks; /* tricks of the round played last */
    Py_ssize_t keys;   /* object keys seen, all levels */
} Game;

#define DECLINE 0
#define OK 1

/* The key names, made once as Python strings (their hashes cached) for fast lookups. */
enum {
    K_FORMAT, K_GAME_ID, K_EVENT, K_SITE, K_DATE, K_STAGE, K_PLAYERS, K_SHEET, K_RULES,
    K_ROUNDS, K_RESULT, K_PHANTOM, K_CHRISTINE, K_BEGINNER, K_BALANCE, K_WINNER, K_NOTES,
    K_DEAL, K_EXCHANGE, K_SPECIAL_NUMBER, K_TRICKS, K_ASIDE, K_PLAYS, K_COMMENT, K_PLAYER,
    K_CARD, K_SWAP, K_COUNT
};
static const char *const KEY_NAMES[K_COUNT] = {
    "format", "game_id", "event", "site", "date", "stage", "players", "sheet", "rules",
    "rounds", "result", "phantom", "christine", "beginner", "balance", "winner", "notes",
    "deal", "exchange", "special_number", "tricks", "aside", "plays", "comment", "player",
    "card", "swap"};
static PyObject *KEYS[K_COUNT];

/* The value of a key (borrowed), or NULL when absent. */
static inline PyObject *
get(PyObject *object, int key)
{
    return PyDict_GetItemWithError(object, KEYS[key]);
}

/* -- JSON values ----------------------------------------------------------------------- */

static int
is_text(PyObject *value, Py_ssize_t low, Py_ssize_t high)
{
    if (!PyUnicode_CheckExact(value))
        return 0;
    Py_ssize_t length = PyUnicode_GET_LENGTH(value);
    return length >= low && length <= high;
}

static int
text_equals(PyObject *value, const char *text)
{
    return PyUnicode_CheckExact(value) && PyUnicode_CompareWithASCIIString(value, text) == 0;
}

static int
is_extension_key(PyObject *key)
{
    if (!PyUnicode_CheckExact(key) || PyUnicode_GET_LENGTH(key) < 2)
        return 0;
    return PyUnicode_READ_CHAR(key, 0) == 'x' && PyUnicode_READ_CHAR(key, 1) == '-';
}

/* The keys of every object inside a value (extension values are not checked, but their
 * keys count for the duplicate-key check). Returns -1 for nesting too deep to bother, and
 * for any float or integer beyond 64 bits (orjson reads integers beyond 64 bits as
 * floats, and the full check refuses them). */
static Py_ssize_t
count_keys(PyObject *value, int depth)
{
    if (depth > 64)
        return -1;
    Py_ssize_t total = 0, sub;
    if (PyFloat_CheckExact(value))
        return -1; /* may be an integer beyond 64 bits that orjson read as a float */
    if (PyLong_CheckExact(value)) {
        int overflow = 0;
        (void)PyLong_AsLongLongAndOverflow(value, &overflow);
        return overflow ? -1 : 0;
    }
    if (PyDict_CheckExact(value)) {
        PyObject *key, *item;
        Py_ssize_t position = 0;
        total = PyDict_GET_SIZE(value);
        while (PyDict_Next(value, &position, &key, &item)) {
            if ((sub = count_keys(item, depth + 1)) < 0)
                return -1;
            total += sub;
        }
    }
    else if (PyList_CheckExact(value)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++) {
            if ((sub = count_keys(PyList_GET_ITEM(value, i), depth + 1)) < 0)
                return -1;
            total += sub;
        }
    }
    return total;
}

/* Checks the keys of an object against the allowed keys (a list ended by -1), counts
 * them, and counts the keys inside its extension values. */
static int
only_keys(Game *game, PyObject *object, const int *allowed)
{
    Py_ssize_t size = PyDict_GET_SIZE(object), found = 0;
    game->keys += size;
    for (const int *key = allowed; *key >= 0; key++)
        found += get(object, *key) != NULL;
    if (found == size)
        return OK;
    PyObject *key, *item;
    Py_ssize_t position = 0;
    while (PyDict_Next(object, &position, &key, &item)) {
        int known = 0;
        for (const int *name = allowed; *name >= 0; name++) {
            if (PyUnicode_CheckExact(key) && PyUnicode_Compare(key, KEYS[*name]) == 0) {
                known = 1;
                break;
            }
        }
        if (known)
            continue;
        if (!is_extension_key(key))
            return DECLINE;
        Py_ssize_t inside = count_keys(item, 0);
        if (inside < 0)
            return DECLINE;
        game->keys += inside;
    }
    return OK;
}

/* A card code ("Ma5") as 0-23, or -1. */
static int
card_of(PyObject *value)
{
    if (!PyUnicode_CheckExact(value) || PyUnicode_GET_LENGTH(value) != 3)
        return -1;
    Py_UCS4 a = PyUnicode_READ_CHAR(value, 0), b = PyUnicode_READ_CHAR(value, 1);
    Py_UCS4 c = PyUnicode_READ_CHAR(value, 2);
    int suit;
    if (a == 'M' && b == 'i')
        suit = 0;
    else if (a == 'C' && b == 'h')
        suit = 1;
    else if (a == 'R' && b == 'i')
        suit = 2;
    else if (a == 'M' && b == 'a')
        suit = 3;
    else
        return -1;
    if (c < '1' || c > '6')
        return -1;
    return suit * 6 + (int)(c - '1');
}

/* A role ("phantom" / "christine") as 0 / 1, or -1. */
static int
role_of(PyObject *value)
{
    if (text_equals(value, "phantom"))
        return 0;
    if (text_equals(value, "christine"))
        return 1;
    return -1;
}

/* An exact int in [low, high]; floats are left to the full check. */
static int
small_int(PyObject *value, long low, long high, long *out)
{
    if (!PyLong_CheckExact(value))
        return 0;
    int overflow = 0;
    long number = PyLong_AsLongAndOverflow(value, &overflow);
    if (overflow || number < low || number > high)
        return 0;
    *out = number;
    return 1;
}

static int
is_date(PyObject *value)
{
    if (!PyUnicode_CheckExact(value) || PyUnicode_GET_LENGTH(value) != 10)
        return 0;
    int digits[10];
    for (int i = 0; i < 10; i++) {
        Py_UCS4 c = PyUnicode_READ_CHAR(value, i);
        if (i == 4 || i == 7) {
            if (c != '-')
                return 0;
            continue;
        }
        if (c < '0' || c > '9')
            return 0;
        digits[i] = (int)(c - '0');
    }
    int year = digits[0] * 1000 + digits[1] * 100 + digits[2] * 10 + digits[3];
    int month = digits[5] * 10 + digits[6];
    int day = digits[8] * 10 + digits[9];
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (year < 1 || month < 1 || month > 12 || day < 1)
        return 0;
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    int limit = days[month - 1] + (month == 2 && leap);
    return day <= limit;
}

/* A list of distinct cards as a bit mask; -1 when it is not one. */
static long
card_list(PyObject *value, Py_ssize_t expected, int *count)
{
    if (!PyList_CheckExact(value))
        return -1;
    Py_ssize_t size = PyList_GET_SIZE(value);
    if (expected >= 0 && size != expected)
        return -1;
    long mask = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        int card = card_of(PyList_GET_ITEM(value, i));
        if (card < 0 || (mask >> card & 1))
            return -1;
        mask |= 1L << card;
    }
    if (count != NULL)
        *count = (int)size;
    return mask;
}

/* -- the rules ------------------------------------------------------------------------- */

static int
popcount(unsigned int mask)
{
    return __builtin_popcount(mask);
}

/* Whether the leader's card wins (RULES.md, "Who wins a trick"). */
static int
leader_wins(int lead, int follow, int super_trump)
{
    int lead_suit = lead / 6, follow_suit = follow / 6;
    if (lead_suit == follow_suit)
        return lead > follow;
    int lead_class = lead_suit == super_trump ? 3 : lead_suit == 3 ? 2 : 1;
    int follow_class = follow_suit == super_trump ? 3 : follow_suit == 3 ? 2 : 0;
    return follow_class <= lead_class;
}

static const int SWAP_KEYS[] = {K_PHANTOM, K_CHRISTINE, -1};

/* The swap after a special card (or its absence after another card). */
static int
swap(Game *game, PyObject *play, int special_card)
{
    PyObject *given = get(play, K_SWAP); /* borrowed */
    long masks[2] = {0, 0};
    int counts[2] = {0, 0};
    if (given != NULL) {
        if (!PyDict_CheckExact(given) || !only_keys(game, given, SWAP_KEYS))
            return DECLINE;
        for (int role = 0; role < 2; role++) {
            PyObject *list = get(given, SWAP_KEYS[role]);
            if (list == NULL)
                continue;
            if (!PyList_CheckExact(list) || PyList_GET_SIZE(list) > 10)
                return DECLINE;
            masks[role] = card_list(list, -1, &counts[role]);
            if (masks[role] < 0)
                return DECLINE;
        }
    }
    int size = popcount(game->hand[0]);
    if (popcount(game->hand[1]) < size)
        size = popcount(game->hand[1]);
    if (size > 2)
        size = 2;
    if (!special_card || size == 0)
        return counts[0] == 0 && counts[1] == 0 ? OK : DECLINE;
    if (given == NULL || counts[0] != size || counts[1] != size)
        return DECLINE;
    if (get(given, K_PHANTOM) == NULL ||
        get(given, K_CHRISTINE) == NULL)
        return DECLINE;
    for (int role = 0; role < 2; role++)
        if ((game->hand[role] & (unsigned int)masks[role]) != (unsigned int)masks[role])
            return DECLINE;
    unsigned int phantom = game->hand[0], christine = game->hand[1];
    game->hand[0] = (phantom & ~(unsigned int)masks[0]) | (unsigned int)masks[1];
    game->hand[1] = (christine & ~(unsigned int)masks[1]) | (unsigned int)masks[0];
    return OK;
}

static const int PLAY_KEYS[] = {K_PLAYER, K_CARD, K_SWAP, -1};

/* One play: the right player, a card held, the lead suit followed, the swap. */
static int
play(Game *game, PyObject *data, int player, int lead, int *card_out)
{
    if (!PyDict_CheckExact(data) || !only_keys(game, data, PLAY_KEYS))
        return DECLINE;
    PyObject *who = get(data, K_PLAYER);
    PyObject *what = get(data, K_CARD);
    if (who == NULL || what == NULL || role_of(who) != player)
        return DECLINE;
    int card = card_of(what);
    if (card < 0 || !(game->hand[player] >> card & 1))
        return DECLINE;
    if (lead >= 0) {
        unsigned int suit_mask = 0x3Fu << (6 * (lead / 6));
        if (card / 6 != lead / 6 && (game->hand[player] & suit_mask))
            return DECLINE; /* a revoke */
    }
    game->hand[player] &= ~(1u << card);
    if (!swap(game, data, card % 6 + 1 == game->special))
        return DECLINE;
    *card_out = card;
    return OK;
}

static const int TRICK_KEYS[] = {K_PLAYS, K_WINNER, K_COMMENT, -1};

/* One trick; *complete is set to 0 for a trick of one play (the caller allows it only as
 * the last trick of the record, and then declines: the game is unfinished). */
static int
trick(Game *game, PyObject *data, int *leader, int *complete)
{
    if (!PyDict_CheckExact(data) || !only_keys(game, data, TRICK_KEYS))
        return DECLINE;
    PyObject *plays = get(data, K_PLAYS);
    if (plays == NULL || !PyList_CheckExact(plays))
        return DECLINE;
    Py_ssize_t count = PyList_GET_SIZE(plays);
    if (count < 1 || count > 2)
        return DECLINE;
    PyObject *claim = get(data, K_WINNER);
    int claimed = -1;
    if (claim != NULL && (claimed = role_of(claim)) < 0)
        return DECLINE;
    PyObject *comment = get(data, K_COMMENT);
    if (comment != NULL && !is_text(comment, 0, COMMENT_MAX_LEN))
        return DECLINE;
    int lead, follow;
    if (!play(game, PyList_GET_ITEM(plays, 0), *leader, -1, &lead))
        return DECLINE;
    if (count == 1) {
        *complete = 0;
        return OK;
    }
    *complete = 1;
    int follower = 1 - *leader;
    if (!play(game, PyList_GET_ITEM(plays, 1), follower, lead, &follow))
        return DECLINE;
    int super_trump = game->notes == 0 ? -1 : game->sheet.suit[game->notes - 1];
    int winner = leader_wins(lead, follow, super_trump) ? *leader : follower;
    if (claimed >= 0 && claimed != winner)
        return DECLINE;
    int in_order = winner == game->sheet.owner[game->notes];
    int special = lead % 6 + 1 == game->special || follow % 6 + 1 == game->special;
    int notes = game->notes;
    if (!special)
        notes += in_order;
    else if (in_order)
        notes = notes + 2 > NOTES ? NOTES : notes + 2;
    else
        notes = notes - (game->balance ? 1 : 2) < 0 ? 0 : notes - (game->balance ? 1 : 2);
    game->notes = notes;
    *leader = winner;
    return OK;
}

static const int ROUND_KEYS[] = {K_DEAL, K_EXCHANGE, K_SPECIAL_NUMBER, K_TRICKS, -1};
static const int DEAL_KEYS[] = {K_PHANTOM, K_CHRISTINE, K_ASIDE, -1};
static const int EXCHANGE_KEYS[] = {K_PHANTOM, K_CHRISTINE, -1};

static int
round_(Game *game, PyObject *data, int index, int last_round)
{
    if (!PyDict_CheckExact(data) || !only_keys(game, data, ROUND_KEYS))
        return DECLINE;
    PyObject *deal = get(data, K_DEAL);
    PyObject *number = get(data, K_SPECIAL_NUMBER);
    PyObject *tricks = get(data, K_TRICKS);
    PyObject *exchange = get(data, K_EXCHANGE);
    if (deal == NULL || number == NULL || tricks == NULL || !PyList_CheckExact(tricks))
        return DECLINE;
    if (!PyDict_CheckExact(deal) || !only_keys(game, deal, DEAL_KEYS))
        return DECLINE;
    PyObject *phantom = get(deal, K_PHANTOM);
    PyObject *christine = get(deal, K_CHRISTINE);
    PyObject *aside = get(deal, K_ASIDE);
    if (phantom == NULL || christine == NULL)
        return DECLINE;
    long hands[2] = {card_list(phantom, 10, NULL), card_list(christine, 10, NULL)};
    if (hands[0] < 0 || hands[1] < 0 || (hands[0] & hands[1]))
        return DECLINE;
    if (aside != NULL) {
        long rest = card_list(aside, 4, NULL);
        if (rest < 0 || (rest & (hands[0] | hands[1])))
            return DECLINE;
    }
    long special;
    if (!small_int(number, 1, 6, &special))
        return DECLINE;
    game->hand[0] = (unsigned int)hands[0];
    game->hand[1] = (unsigned int)hands[1];
    if (game->beginner) {
        if (exchange != NULL)
            return DECLINE;
    }
    else {
        if (exchange == NULL || !PyDict_CheckExact(exchange) ||
            !only_keys(game, exchange, EXCHANGE_KEYS))
            return DECLINE;
        PyObject *given_p = get(exchange, K_PHANTOM);
        PyObject *given_c = get(exchange, K_CHRISTINE);
        if (given_p == NULL || given_c == NULL)
            return DECLINE;
        int card_p = card_of(given_p), card_c = card_of(given_c);
        if (card_p < 0 || card_c < 0 || !(game->hand[0] >> card_p & 1) ||
            !(game->hand[1] >> card_c & 1))
            return DECLINE;
        game->hand[0] = (game->hand[0] & ~(1u << card_p)) | 1u << card_c;
        game->hand[1] = (game->hand[1] & ~(1u << card_c)) | 1u << card_p;
        if (special != card_p % 6 + 1 && special != card_c % 6 + 1)
            return DECLINE;
    }
    game->special = (int)special;
    Py_ssize_t count = PyList_GET_SIZE(tricks);
    game->tricks = count;
    if (count > TRICKS || (count < TRICKS && !last_round))
        return DECLINE; /* too many, or an incomplete round followed by another */
    int leader = index == 0 ? 0 : 1;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (game->over)
            return DECLINE; /* a trick after the game ended */
        int complete;
        if (!trick(game, PyList_GET_ITEM(tricks, i), &leader, &complete))
            return DECLINE;
        if (!complete)
            return DECLINE; /* an unfinished record, or an incomplete trick */
        if (game->notes == NOTES) {
            game->over = 1;
            game->end_round = index + 1;
            game->end_trick = (int)i + 1;
        }
    }
    return OK;
}

static const int RECORD_KEYS[] = {
    K_FORMAT, K_GAME_ID, K_EVENT, K_SITE, K_DATE, K_STAGE, K_PLAYERS,
    K_SHEET, K_RULES, K_ROUNDS, K_RESULT, -1};
static const int PLAYER_KEYS[] = {K_PHANTOM, K_CHRISTINE, -1};
static const int RULE_KEYS[] = {K_BEGINNER, K_BALANCE, -1};
static const int RESULT_KEYS[] = {K_WINNER, K_NOTES, -1};

static PyObject *
check(PyObject *module, PyObject *args)
{
    PyObject *record, *sheets;
    if (!PyArg_ParseTuple(args, "O!O!", &PyDict_Type, &record, &PyDict_Type, &sheets))
        return NULL;
    Game game;
    memset(&game, 0, sizeof game);
    if (!PyDict_CheckExact(record) || !only_keys(&game, record, RECORD_KEYS))
        Py_RETURN_NONE;
    PyObject *value;
    if ((value = get(record, K_FORMAT)) == NULL ||
        !text_equals(value, "phantom-log/1"))
        Py_RETURN_NONE;
    if ((value = get(record, K_GAME_ID)) == NULL ||
        !is_text(value, 1, NAME_MAX_LEN))
        Py_RETURN_NONE;
    const int texts[] = {K_EVENT, K_SITE, K_STAGE};
    for (int i = 0; i < 3; i++)
        if ((value = get(record, texts[i])) != NULL &&
            !is_text(value, 0, NAME_MAX_LEN))
            Py_RETURN_NONE;
    if ((value = get(record, K_DATE)) != NULL && !is_date(value))
        Py_RETURN_NONE;
    PyObject *players = get(record, K_PLAYERS);
    if (players == NULL || !PyDict_CheckExact(players) || !only_keys(&game, players, PLAYER_KEYS))
        Py_RETURN_NONE;
    for (int role = 0; role < 2; role++) {
        value = get(players, PLAYER_KEYS[role]);
        if (value == NULL || !is_text(value, 1, NAME_MAX_LEN))
            Py_RETURN_NONE;
    }
    PyObject *sheet = get(record, K_SHEET);
    if (sheet == NULL || !is_text(sheet, 1, NAME_MAX_LEN))
        Py_RETURN_NONE; /* a sheet object, or no sheet: the full check */
    PyObject *layout = PyDict_GetItem(sheets, sheet);
    if (layout == NULL || !PyBytes_CheckExact(layout) || PyBytes_GET_SIZE(layout) != 2 * NOTES)
        Py_RETURN_NONE;
    memcpy(game.sheet.owner, PyBytes_AS_STRING(layout), NOTES);
    memcpy(game.sheet.suit, PyBytes_AS_STRING(layout) + NOTES, NOTES);
    PyObject *rules = get(record, K_RULES);
    if (rules != NULL) {
        if (!PyDict_CheckExact(rules) || !only_keys(&game, rules, RULE_KEYS))
            Py_RETURN_NONE;
        PyObject *flag;
        if ((flag = get(rules, K_BEGINNER)) != NULL) {
            if (!PyBool_Check(flag))
                Py_RETURN_NONE;
            game.beginner = flag == Py_True;
        }
        if ((flag = get(rules, K_BALANCE)) != NULL) {
            if (!PyBool_Check(flag))
                Py_RETURN_NONE;
            game.balance = flag == Py_True;
        }
    }
    PyObject *rounds = get(record, K_ROUNDS);
    if (rounds == NULL || !PyList_CheckExact(rounds))
        Py_RETURN_NONE;
    Py_ssize_t count = PyList_GET_SIZE(rounds);
    if (count < 1 || count > 2)
        Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (game.over)
            Py_RETURN_NONE; /* a round after the game ended */
        if (!round_(&game, PyList_GET_ITEM(rounds, i), (int)i, i == count - 1))
            Py_RETURN_NONE;
    }
    int winner;
    if (game.over)
        winner = 0;
    else if (count == 2 && game.tricks == TRICKS) {
        /* round 2's 10th trick played (round_ declined a trick of one play): Christine */
        winner = 1;
        game.end_round = 2;
        game.end_trick = TRICKS;
    }
    else
        Py_RETURN_NONE; /* unfinished: the full check words the warning */
    PyObject *result = get(record, K_RESULT);
    if (result != NULL) {
        if (!PyDict_CheckExact(result) || !only_keys(&game, result, RESULT_KEYS))
            Py_RETURN_NONE;
        PyObject *claimed = get(result, K_WINNER);
        PyObject *notes = get(result, K_NOTES);
        long claimed_notes;
        if (claimed == NULL || notes == NULL || role_of(claimed) != winner ||
            !small_int(notes, 0, 12, &claimed_notes) || claimed_notes != game.notes)
            Py_RETURN_NONE;
    }
    return Py_BuildValue("(iiiin)", winner, game.notes, game.end_round, game.end_trick,
                         game.keys);
}

/* All the keys of the objects inside a value (for the duplicate-key check of any text). */
static Py_ssize_t
all_keys(PyObject *value, int depth)
{
    if (depth > 2000)
        return -1;
    Py_ssize_t total = 0, sub;
    if (PyDict_CheckExact(value)) {
        PyObject *key, *item;
        Py_ssize_t position = 0;
        total = PyDict_GET_SIZE(value);
        while (PyDict_Next(value, &position, &key, &item)) {
            if ((sub = all_keys(item, depth + 1)) < 0)
                return -1;
            total += sub;
        }
    }
    else if (PyList_CheckExact(value)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++) {
            if ((sub = all_keys(PyList_GET_ITEM(value, i), depth + 1)) < 0)
                return -1;
            total += sub;
        }
    }
    return total;
}

static PyObject *
key_count(PyObject *module, PyObject *value)
{
    return PyLong_FromSsize_t(all_keys(value, 0));
}

static PyMethodDef methods[] = {
    {"key_count", key_count, METH_O,
     "key_count(value) -> int\n\nHow many keys the objects inside a parsed JSON value hold,\n"
     "all levels together (-1 past 2,000 levels of nesting)."},
    {"check", check, METH_VARARGS,
     "check(record, sheets) -> (winner, notes, end_round, end_trick, keys) or None\n\n"
     "(winner, ...) when the record (as parsed by orjson) is valid, finished and all its\n"
     "claims are right; None when the full check must decide. sheets maps a sheet name\n"
     "to 24 bytes: the owners of notes 1-12 (0 Phantom, 1 Christine), then their suits."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "phantom_log._fastpath",
    "A fast check of wholly valid records (see phantom_log.fastpath).", -1, methods,
};

PyMODINIT_FUNC
PyInit__fastpath(void)
{
    for (int i = 0; i < K_COUNT; i++) {
        KEYS[i] = PyUnicode_InternFromString(KEY_NAMES[i]);
        if (KEYS[i] == NULL)
            return NULL;
    }
    return PyModule_Create(&module);
}
