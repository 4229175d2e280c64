//! jsonwebtoken 9.0.2 and jose 5.9.6 (in tests/fixtures/npm-jwt/node_modules) inside a plugin
//! against Node: shared/probe.mjs signs and verifies HS256, RS256, ES256, PS256 and EdDSA
//! tokens, refuses a wrong secret, encrypts and decrypts JWEs (dir with A256GCM, RSA-OAEP-256
//! with A128CBC-HS256) and round-trips a JWK, here and under `node`; the results must be the same.
mod common;

use common::*;

#[tokio::test(flavor = "multi_thread")]
async fn jsonwebtoken_and_jose_behave_as_on_node() {
    let probe = fixture("npm-jwt").join("shared/probe.mjs");
    let node = under_node(&format!(
        "const {{ probe }} = await import({:?});\nconsole.log(JSON.stringify(await probe()));",
        probe.display().to_string(),
    ));
    assert_same_as_node(&plugin_result("npm-jwt").await, &node);
}
