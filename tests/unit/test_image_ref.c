/* Image references (Docker's normalisation cases), digests, manifests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "image/image.h"

#define H64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_normalise(void **state)
{
	static const char *const cases[][2] = {
		{"busybox", "docker.io/library/busybox:latest"},
		{"busybox:1.36", "docker.io/library/busybox:1.36"},
		{"library/busybox", "docker.io/library/busybox:latest"},
		{"docker.io/busybox", "docker.io/library/busybox:latest"},
		{"index.docker.io/library/busybox:1", "docker.io/library/busybox:1"},
		{"user/app", "docker.io/user/app:latest"},
		{"user/app:v1.2_3-rc", "docker.io/user/app:v1.2_3-rc"},
		{"localhost/x", "localhost/x:latest"},
		{"localhost:5000/x", "localhost:5000/x:latest"},
		{"localhost:5000/a/b/c:t", "localhost:5000/a/b/c:t"},
		{"127.0.0.1:5000/busybox:1", "127.0.0.1:5000/busybox:1"},
		{"registry.k8s.io/pause:3.9", "registry.k8s.io/pause:3.9"},
		{"ghcr.io/org/my-app__x.y:tag", "ghcr.io/org/my-app__x.y:tag"},
		{"Foo/bar", "Foo/bar:latest"},          /* upper case first component: a domain */
		{"[::1]:5000/x", "[::1]:5000/x:latest"},
		{"busybox@sha256:" H64, "docker.io/library/busybox@sha256:" H64},
		{"busybox:1@sha256:" H64, "docker.io/library/busybox:1@sha256:" H64},
		{"localhost:5000/x@sha256:" H64, "localhost:5000/x@sha256:" H64},
		{"a--b/c", "docker.io/a--b/c:latest"},
	};
	char buf[700];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sk_image_ref r;
		sk_error_t err = {0};

		if (sk_image_ref_parse(cases[i][0], &r, &err) < 0)
			fail_msg("%s: %s", cases[i][0], err.msg);
		sk_image_ref_string(&r, buf, sizeof(buf));
		assert_string_equal(buf, cases[i][1]);
	}
}

static void test_parts(void **state)
{
	sk_image_ref r;
	char repo[600];

	assert_int_equal(sk_image_ref_parse("localhost:5000/x/y:2", &r, NULL), 0);
	assert_string_equal(r.domain, "localhost:5000");
	assert_string_equal(r.path, "x/y");
	assert_string_equal(r.tag, "2");
	assert_string_equal(r.digest, "");
	sk_image_ref_repo(&r, repo, sizeof(repo));
	assert_string_equal(repo, "localhost:5000/x/y");
	assert_int_equal(sk_image_ref_parse("busybox@sha256:" H64, &r, NULL), 0);
	assert_string_equal(r.tag, "");
	assert_string_equal(r.digest, "sha256:" H64);
}

static void test_invalid(void **state)
{
	static const char *const bad[] = {
		"", ":", "busybox:", "Busybox", "docker.io/Busybox", "a/B", "busybox@sha256:abc",
		"busybox@sha256:" H64 "0", "busybox@md5:" H64, "-busybox", "busybox-", "a//b", "a/",
		"/a", "a..b", "a___b", "busybox:-tag", "busybox:t@g", H64, "localhost:port/x",
		"host:99999999/x", "bad_host.io:5000/x:y:z", "a b", "busybox:" "012345678901234567890123456789"
		"01234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sk_image_ref r;
		sk_error_t err = {0};

		if (sk_image_ref_parse(bad[i], &r, &err) == 0)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_non_null(strstr(err.msg, "image reference"));
	}
}

static void test_messages(void **state)
{
	sk_image_ref r;
	sk_error_t err = {0};

	sk_image_ref_parse("Docker.io/Busybox", &r, &err);
	assert_string_equal(err.msg, "image reference \"Docker.io/Busybox\": repository name must be lowercase");
	sk_image_ref_parse("busybox@sha512:" H64, &r, &err);
	assert_non_null(strstr(err.msg, "unsupported algorithm"));
}

static void test_digest(void **state)
{
	assert_int_equal(sk_image_digest_check("sha256:" H64, NULL), 0);
	assert_int_equal(sk_image_digest_check("sha256:" H64 "a", NULL), -1);
	assert_int_equal(sk_image_digest_check("sha256:0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", NULL), -1);
	assert_int_equal(sk_image_digest_check("sha256", NULL), -1);
}

static const char index_json[] =
	"{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\",\"manifests\":["
	"{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"sha256:" H64 "\",\"size\":10,"
	"\"platform\":{\"os\":\"linux\",\"architecture\":\"arm\",\"variant\":\"v7\"}},"
	"{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"sha256:" H64 "\",\"size\":11,"
	"\"platform\":{\"os\":\"linux\",\"architecture\":\"amd64\"}},"
	"{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"sha256:" H64 "\",\"size\":12,"
	"\"platform\":{\"os\":\"linux\",\"architecture\":\"arm64\",\"variant\":\"v8\"}}]}";

static void test_manifest(void **state)
{
	sk_image_manifest m;
	sk_error_t err = {0};
	const char *man = "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\","
			  "\"config\":{\"mediaType\":\"x\",\"digest\":\"sha256:" H64 "\",\"size\":5},"
			  "\"layers\":[{\"mediaType\":\"application/vnd.docker.image.rootfs.diff.tar.gzip\","
			  "\"digest\":\"sha256:" H64 "\",\"size\":7}]}";

	assert_int_equal(sk_image_manifest_parse(index_json, strlen(index_json), &m, &err), 0);
	assert_true(m.is_index);
	assert_int_equal(m.n_layers, 3);
	assert_int_equal(sk_image_manifest_select(&m, "linux/amd64"), 1);
	assert_int_equal(sk_image_manifest_select(&m, "linux/arm64"), 2);
	assert_int_equal(sk_image_manifest_select(&m, "linux/arm/v7"), 0);
	assert_int_equal(sk_image_manifest_select(&m, "windows/amd64"), -1);
	sk_image_manifest_release(&m);

	assert_int_equal(sk_image_manifest_parse(man, strlen(man), &m, &err), 0);
	assert_false(m.is_index);
	assert_int_equal(m.n_layers, 1);
	assert_int_equal(m.layers[0].size, 7);
	assert_int_equal(m.config.size, 5);
	sk_image_manifest_release(&m);

	assert_int_equal(sk_image_manifest_parse("{\"schemaVersion\":1}", 19, &m, &err), -1);
	assert_int_equal(sk_image_manifest_parse("[]", 2, &m, &err), -1);
	assert_int_equal(sk_image_manifest_parse("{\"schemaVersion\":2,\"config\":{\"digest\":\"sha256:x\",\"size\":1},\"layers\":[]}", 70, &m, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_manifest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
