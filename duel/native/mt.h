// Python's random.Random in C++: the same MT19937 generator, the same seeding of an int seed
// (init_by_array over the seed's 32-bit words) and the same random() and getrandbits(k <= 32),
// so that a native playout or search draws exactly the numbers the Python engine draws. The
// state moves to and from Python through random.Random.getstate()/setstate() (624 words and
// the index), so a Python generator can be handed to native code and taken back.
#pragma once
#include <cstdint>
#include <vector>

namespace duel {

struct MT {
    uint32_t mt[624];
    int mti = 625;

    void init_genrand(uint32_t s) {
        mt[0] = s;
        for (mti = 1; mti < 624; mti++)
            mt[mti] = 1812433253u * (mt[mti - 1] ^ (mt[mti - 1] >> 30)) + (uint32_t)mti;
    }

    // CPython's random_seed for a non-negative int: its absolute value's 32-bit words,
    // least significant first ([0] for 0).
    void seed(uint64_t n) {
        uint32_t key[2] = {(uint32_t)n, (uint32_t)(n >> 32)};
        int len = (n >> 32) ? 2 : 1;
        init_genrand(19650218u);
        int i = 1, j = 0;
        for (int k = 624 > len ? 624 : len; k; k--) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
            i++; j++;
            if (i >= 624) { mt[0] = mt[623]; i = 1; }
            if (j >= len) j = 0;
        }
        for (int k = 623; k; k--) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
            i++;
            if (i >= 624) { mt[0] = mt[623]; i = 1; }
        }
        mt[0] = 0x80000000u;
        mti = 624;
    }

    uint32_t next() {
        static const uint32_t mag01[2] = {0x0u, 0x9908b0dfu};
        uint32_t y;
        if (mti >= 624) {
            int kk;
            for (kk = 0; kk < 624 - 397; kk++) {
                y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
                mt[kk] = mt[kk + 397] ^ (y >> 1) ^ mag01[y & 1u];
            }
            for (; kk < 623; kk++) {
                y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
                mt[kk] = mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 1u];
            }
            y = (mt[623] & 0x80000000u) | (mt[0] & 0x7fffffffu);
            mt[623] = mt[396] ^ (y >> 1) ^ mag01[y & 1u];
            mti = 0;
        }
        y = mt[mti++];
        y ^= (y >> 11);
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        y ^= (y >> 18);
        return y;
    }

    // random.Random.random(): 53 bits from two words.
    double random() {
        uint32_t a = next() >> 5, b = next() >> 6;
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
    }

    uint32_t getrandbits(int k) { return next() >> (32 - k); }

    // duel.engine.draws.below: uniform in [0, n) by rejection, n > 0.
    int below(int n) {
        int k = 32 - __builtin_clz((unsigned)n);  // n.bit_length()
        uint32_t r = getrandbits(k);
        while (r >= (uint32_t)n) r = getrandbits(k);
        return (int)r;
    }

    template <class T> void shuffle(T* x, int len) {
        for (int i = len - 1; i > 0; i--) {
            int j = below(i + 1);
            T t = x[i]; x[i] = x[j]; x[j] = t;
        }
    }

    // getstate()[1]: the 624 words, then the index.
    std::vector<uint32_t> words() const {
        std::vector<uint32_t> out(mt, mt + 624);
        out.push_back((uint32_t)mti);
        return out;
    }
    void set_words(const std::vector<uint32_t>& w) {
        for (int i = 0; i < 624; i++) mt[i] = w[i];
        mti = (int)w[624];
    }
};

}  // namespace duel
