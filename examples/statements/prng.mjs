// @ts-check
/**
 * The statements example's seeded pseudo-random numbers: mulberry32 over a 32-bit state seeded from a
 * name (FNV-1a). The same seed gives the same sequence on every platform and Node version: integer
 * arithmetic only, and a uniform number is a uint32 divided by 2^32, exact in a double. Not for
 * anything secret. Each `Random` owns its state; nothing is shared.
 */

/** FNV-1a offset basis and prime (32-bit), as the algorithm defines them. */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 2^32: a uint32 over it is uniform in [0, 1). */
const UINT32_RANGE = 4_294_967_296;

/** A 32-bit seed from a name: FNV-1a over its UTF-16 code units. */
function seedOf(/** @type {string} */ name) {
  let hash = FNV_OFFSET;
  for (let index = 0; index < name.length; index += 1) {
    hash = Math.imul(hash ^ name.charCodeAt(index), FNV_PRIME);
  }
  return hash >>> 0;
}

/** A deterministic sequence of uniform numbers, seeded by a name. */
export class Random {
  /** @type {number} */
  #state;

  /** @param {string} seed */
  constructor(seed) {
    this.#state = seedOf(seed);
  }

  /** Uniform in [0, 1): mulberry32's next output over 2^32. */
  next() {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / UINT32_RANGE;
  }

  /**
   * A whole number uniform in [min, max].
   * @param {number} min
   * @param {number} max
   */
  int(min, max) {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /**
   * One entry of a non-empty list, each equally likely.
   * @template T
   * @param {readonly T[]} list
   * @returns {T}
   */
  pick(list) {
    return /** @type {T} */ (list[Math.floor(this.next() * list.length)]);
  }
}
