/* The FastCGI floors of `make bench` for routes that must write: hello
 * (bench/hello.c) plus one prepared statement per request through libmariadb
 * (the client library under svc's), on the stack's MariaDB, and for
 * delete-rs256 one RS256 signature with OpenSSL. Tables: bench/floors.sql.
 *
 *   hello_db update|insert|delete-rs256 SOCKET_PATH WORKERS
 *   environment: BENCH_DB_SOCKET, BENCH_DB_USER, BENCH_DB_PASSWORD, BENCH_DB_NAME
 *
 * update: a single-row UPDATE by primary key of a row drawn at random among
 * the 100,000 of bench_floor_update (refresh-token's rotation is one such
 * UPDATE). insert: a single-row INSERT into bench_floor_insert (a
 * notification's outbox row). delete-rs256: a single-row DELETE by key from
 * the pre-filled bench_floor_delete (worker w of W deletes ids w+1, w+1+W,
 * ...: each once), then one RS256 signature of an ID token's signing input
 * with a 2048-bit key (the code exchange's code row and ID token). A reply
 * is 200 when the statement changed one row, else 500 (so a floor that ran
 * out of rows is an invalid arm, not a fast one).
 */
#include <mysql.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <string.h>
#include <time.h>

#include "fcgi_prefork.h"

#define UPDATE_ROWS 100000

/* An ID token's signing input, base64url(header).base64url(claims) of scope "openid email profile". */
static const char kIdTokenInput[] =
    "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImtfMDEyMzQ1Njc4OWFiY2RlZjAxMjMifQ.eyJpc3MiOiJodHRwc"
    "zovL2F1dGguZXhhbXBsZS5jb20vb2lkYy8xIiwic3ViIjoiMTAwMSIsImF1ZCI6ImJlbmNoLW9pZGMtY2xpZW50LTAwMDAwI"
    "iwiZXhwIjoxODAwMDAwOTAwLCJpYXQiOjE4MDAwMDAwMDAsImF1dGhfdGltZSI6MTgwMDAwMDAwMCwibm9uY2UiOiJuLTAxM"
    "jM0NTY3ODlhYmNkZWYiLCJhbXIiOlsicHdkIl0sImF0X2hhc2giOiIwMTIzNDU2Nzg5YWJjZGVmZ2hpamtsIiwic2lkIjoiM"
    "DEyMzQ1Njc4OWFiY2RlZmdoaWprbCIsImVtYWlsIjoiYmVuY2gxQGV4YW1wbGUuY29tIiwiZW1haWxfdmVyaWZpZWQiOnRyd"
    "WUsIm5hbWUiOiJCZW5jaCBVc2VyIiwiZ2l2ZW5fbmFtZSI6IkJlbmNoIiwiZmFtaWx5X25hbWUiOiJVc2VyIn0";
/* A notification's outbox row: the recipient, a subject and a merged body of a few hundred bytes. */
static const char kRecipient[] = "rcpt@example.com";
static const char kSubject[] = "Your order has shipped";
static const char kBody[] =
    "<p>Hello Bench,</p><p>your order 100234 has shipped and is on its way. You can follow it with the "
    "tracking number 1Z999AA10123456784 on the carrier's site.</p><p>It should arrive within three working "
    "days. If anything is missing, answer this e-mail and we will sort it out.</p><p>Thank you for your "
    "order,<br>The Example Shop team</p>";

static const char* g_mode;
static EVP_PKEY* g_key;
static int g_workers;

static const char* statement_of(const char* mode) {
  if (strcmp(mode, "update") == 0)
    return "UPDATE bench_floor_update SET generation = generation + 1, used_at = NOW() WHERE id = ?";
  if (strcmp(mode, "insert") == 0)
    return "INSERT INTO bench_floor_insert (site_id, recipient, subject, body, created_at) VALUES (?, ?, ?, ?, NOW())";
  if (strcmp(mode, "delete-rs256") == 0) return "DELETE FROM bench_floor_delete WHERE id = ?";
  return NULL;
}

static int sign_rs256(void) {
  unsigned char sig[512];
  size_t len = sizeof sig;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  int ok = ctx && EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, g_key) == 1 &&
           EVP_DigestSign(ctx, sig, &len, (const unsigned char*)kIdTokenInput, sizeof kIdTokenInput - 1) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

static void bind_string(MYSQL_BIND* b, const char* text, unsigned long* len) {
  *len = (unsigned long)strlen(text);
  b->buffer_type = MYSQL_TYPE_STRING;
  b->buffer = (void*)text;
  b->length = len;
}

static int serve(int listen_fd, int worker) {
  MYSQL* db = mysql_init(NULL);
  if (!mysql_real_connect(db, NULL, getenv("BENCH_DB_USER"), getenv("BENCH_DB_PASSWORD"), getenv("BENCH_DB_NAME"), 0,
                          getenv("BENCH_DB_SOCKET"), 0)) {
    fprintf(stderr, "hello_db: %s\n", mysql_error(db));
    return 1;
  }
  MYSQL_STMT* st = mysql_stmt_init(db);
  const char* sql = statement_of(g_mode);
  if (!st || mysql_stmt_prepare(st, sql, (unsigned long)strlen(sql)) != 0) {
    fprintf(stderr, "hello_db: %s\n", mysql_error(db));
    return 1;
  }
  long long key = 0, next_delete = worker + 1;
  unsigned long lens[3];
  MYSQL_BIND bind[4];
  memset(bind, 0, sizeof bind);
  bind[0].buffer_type = MYSQL_TYPE_LONGLONG;
  bind[0].buffer = &key;
  bind_string(&bind[1], kRecipient, &lens[0]);
  bind_string(&bind[2], kSubject, &lens[1]);
  bind_string(&bind[3], kBody, &lens[2]);
  if (mysql_stmt_bind_param(st, bind) != 0) return 1;
  const int deleting = strcmp(g_mode, "delete-rs256") == 0, inserting = strcmp(g_mode, "insert") == 0;
  unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();

  FCGX_Request request;
  if (FCGX_InitRequest(&request, listen_fd, 0) != 0) return 1;
  while (FCGX_Accept_r(&request) >= 0) {
    if (deleting) {
      key = next_delete;
      next_delete += g_workers;
    } else {
      key = inserting ? 1 : 1 + rand_r(&seed) % UPDATE_ROWS;
    }
    int ok = mysql_stmt_execute(st) == 0 && mysql_stmt_affected_rows(st) == 1;
    if (ok && deleting) ok = sign_rs256();
    if (ok) {
      FCGX_PutStr(kReply, (int)sizeof kReply - 1, request.out);
    } else {
      FCGX_FPrintF(request.out,
                   "Status: 500 Internal Server Error\r\nContent-Type: application/json\r\n\r\n"
                   "{\"status\":\"Failed\",\"message\":\"%s\"}",
                   mysql_stmt_error(st));
    }
    FCGX_Finish_r(&request);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 4 || !statement_of(argv[1])) {
    fprintf(stderr, "usage: %s update|insert|delete-rs256 SOCKET_PATH WORKERS\n", argv[0]);
    return 2;
  }
  g_mode = argv[1];
  if (strcmp(g_mode, "delete-rs256") == 0 && !(g_key = EVP_RSA_gen(2048))) return 1;
  g_workers = atoi(argv[3]) < 1 ? 1 : atoi(argv[3]);
  return fcgi_prefork(argv[2], g_workers, serve);
}
