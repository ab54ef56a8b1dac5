import Foundation

/// The documents of the authorization server: what it answers (tokens, errors, the SMART
/// configuration) and the forms and JWTs it reads. Every member of a form or a JWT is
/// optional: what is missing is refused by the check that needs it, in its own words.
enum OAuthDocument {
    /// An access token granted (RFC 6749 section 5.1), with a launch's refresh token and patient.
    struct Token: Encodable {
        var accessToken: String
        var tokenType: String
        var expiresIn: Int
        var scope: String
        var refreshToken: String?
        var patient: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in", scope
            case refreshToken = "refresh_token", patient
        }
    }

    /// An error answer (RFC 6749 section 5.2).
    struct Failure: Encodable {
        var error: String
        var errorDescription: String

        enum CodingKeys: String, CodingKey {
            case error, errorDescription = "error_description"
        }
    }

    /// A form posted to the token or revocation endpoint, by a backend service or a launch's app.
    struct TokenForm: Decodable {
        var grantType, scope, code, codeVerifier, clientID, redirectURI, refreshToken, token: String?
        var clientAssertionType, clientAssertion: String?

        enum CodingKeys: String, CodingKey {
            case grantType = "grant_type", scope, code, codeVerifier = "code_verifier", clientID = "client_id"
            case redirectURI = "redirect_uri", refreshToken = "refresh_token", token
            case clientAssertionType = "client_assertion_type", clientAssertion = "client_assertion"
        }
    }

    /// The query of an authorization request (SMART App Launch, standalone).
    struct AuthorizeQuery: Decodable {
        var clientID, redirectURI, state, responseType, codeChallengeMethod, codeChallenge, aud, scope: String?

        enum CodingKeys: String, CodingKey {
            case clientID = "client_id", redirectURI = "redirect_uri", state, responseType = "response_type"
            case codeChallengeMethod = "code_challenge_method", codeChallenge = "code_challenge", aud, scope
        }
    }

    /// The login page's form.
    struct LoginForm: Decodable {
        var request, username, password: String?
    }

    /// The consent page's form: `decision` is `allow` or `deny`.
    struct ConsentForm: Decodable {
        var request, decision: String?
    }

    /// A client assertion's JOSE header.
    struct AssertionHeader: Decodable {
        var alg, kid: String?
    }

    /// A client assertion's claims; `aud` is one audience or a list of them.
    struct AssertionClaims: Decodable {
        var iss, sub, jti: String?
        var aud: [String]
        var exp: Double?

        enum CodingKeys: String, CodingKey {
            case iss, sub, jti, aud, exp
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            iss = try c.decodeIfPresent(String.self, forKey: .iss)
            sub = try c.decodeIfPresent(String.self, forKey: .sub)
            jti = try c.decodeIfPresent(String.self, forKey: .jti)
            exp = try c.decodeIfPresent(Double.self, forKey: .exp)
            aud = (try? c.decode([String].self, forKey: .aud)) ?? [(try? c.decode(String.self, forKey: .aud)) ?? ""]
        }
    }

    /// A JWK Set, as `caresync fhir smart-key` prints it.
    struct KeySet: Decodable {
        struct Key: Decodable {
            var kty, crv, x, y, kid: String?
        }

        var keys: [Key]?
    }
}
