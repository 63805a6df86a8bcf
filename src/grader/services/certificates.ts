import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { isIP } from "node:net";

/**
 * A throwaway certificate authority for the stand-ins' TLS, made when services start and
 * trusted only by that test run. Node can parse certificates but not make them, so this writes
 * the few X.509 structures it needs in DER by hand (RFC 5280), signed with ECDSA P-256.
 */
export interface CertificateAuthority {
  /** The CA certificate, PEM. */
  readonly certPem: string;
  /** Its private key, which signs what it issues. */
  readonly key: KeyObject;
  /** Its subject, DER, reused as the issuer of what it signs. */
  readonly subject: Buffer;
  /** Its key identifier, for the authority key identifier of what it signs. */
  readonly keyId: Buffer;
}

/** A server certificate and its key, PEM, ready for `tls.createSecureContext`. */
export interface ServerCertificate {
  /** The certificate, PEM. */
  readonly certPem: string;
  /** Its private key, PKCS#8 PEM. */
  readonly keyPem: string;
}

function length(size: number): Buffer {
  if (size < 0x80) return Buffer.from([size]);
  const bytes: number[] = [];
  for (let rest = size; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...items: Buffer[]): Buffer => tlv(0x30, ...items);

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split(".").map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let value = arc >>> 7; value > 0; value >>>= 7) groups.unshift(0x80 | (value & 0x7f));
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A non-negative DER INTEGER from big-endian bytes, minimal as OpenSSL requires. */
export function derInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const value = bytes.subarray(start);
  return tlv(0x02, (value[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
}

function time(date: Date): Buffer {
  // UTCTime covers 1950-2049; GeneralizedTime is required from 2050 on.
  const iso = date.toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`))
    : tlv(0x18, Buffer.from(`${iso}Z`));
}

function name(commonName: string): Buffer {
  const attribute = (type: string, value: string): Buffer =>
    tlv(0x31, sequence(oid(type), tlv(0x0c, Buffer.from(value))));
  return sequence(attribute("2.5.4.10", "lab"), attribute("2.5.4.3", commonName));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

const ECDSA_SHA256 = sequence(oid("1.2.840.10045.4.3.2"));

function keyIdOf(key: KeyObject): Buffer {
  // RFC 5280's method 1: SHA-1 of the subjectPublicKey bits, which end the SPKI.
  const spki = key.export({ type: "spki", format: "der" });
  return createHash("sha1")
    .update(spki.subarray(spki.length - 65))
    .digest();
}

function certificate(options: {
  subject: Buffer;
  issuer: Buffer;
  publicKey: KeyObject;
  signer: KeyObject;
  extensions: Buffer[];
  validDays: number;
}): string {
  const now = Date.now();
  const tbs = sequence(
    tlv(0xa0, derInteger(Buffer.from([2]))),
    derInteger(randomBytes(16)),
    ECDSA_SHA256,
    options.issuer,
    sequence(
      time(new Date(now - 86_400_000)),
      time(new Date(now + options.validDays * 86_400_000)),
    ),
    options.subject,
    options.publicKey.export({ type: "spki", format: "der" }),
    tlv(0xa3, sequence(...options.extensions)),
  );
  const signature = sign("sha256", tbs, options.signer);
  const der = sequence(tbs, ECDSA_SHA256, tlv(0x03, Buffer.from([0]), signature));
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`;
}

/** Makes a fresh CA, valid for a week around now. */
export function createCertificateAuthority(): CertificateAuthority {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const subject = name("lab stand-in CA");
  const keyId = keyIdOf(publicKey);
  const certPem = certificate({
    subject,
    issuer: subject,
    publicKey,
    signer: privateKey,
    validDays: 7,
    extensions: [
      extension("2.5.29.19", true, sequence(tlv(0x01, Buffer.from([0xff])))),
      // keyCertSign and cRLSign.
      extension("2.5.29.15", true, tlv(0x03, Buffer.from([1, 0x06]))),
      extension("2.5.29.14", false, tlv(0x04, keyId)),
    ],
  });
  return { certPem, key: privateKey, subject, keyId };
}

/** Issues a server certificate for these DNS names and IP addresses. */
export function issueServerCertificate(
  authority: CertificateAuthority,
  names: readonly string[],
): ServerCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const altNames = names.map((entry) => {
    if (isIP(entry) === 4) return tlv(0x87, Buffer.from(entry.split(".").map(Number)));
    if (isIP(entry) !== 0) throw new Error(`IPv6 names are not supported: ${entry}`);
    return tlv(0x82, Buffer.from(entry));
  });
  const certPem = certificate({
    subject: name(names[0] ?? "localhost"),
    issuer: authority.subject,
    publicKey,
    signer: authority.key,
    validDays: 7,
    extensions: [
      extension("2.5.29.19", true, sequence()),
      // digitalSignature.
      extension("2.5.29.15", true, tlv(0x03, Buffer.from([7, 0x80]))),
      extension("2.5.29.37", false, sequence(oid("1.3.6.1.5.5.7.3.1"))),
      extension("2.5.29.17", false, sequence(...altNames)),
      extension("2.5.29.14", false, tlv(0x04, keyIdOf(publicKey))),
      extension("2.5.29.35", false, sequence(tlv(0x80, authority.keyId))),
    ],
  });
  return {
    certPem,
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}
