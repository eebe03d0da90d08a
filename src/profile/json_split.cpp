#include "profile/json_split.hpp"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SDSCPROV_SPLIT_AVX2 1
#endif

namespace sdscprov::json_split {

namespace {

struct BlockMasks {
    std::uint64_t quote = 0;
    std::uint64_t backslash = 0;
    std::uint64_t open = 0;  // '{' or '['
    std::uint64_t close = 0; // '}' or ']'
};

// '{' (0x7B) and '[' (0x5B) differ only in bit 0x20, as do '}' (0x7D) and ']' (0x5D): c | 0x20
// tells each pair with one comparison.
BlockMasks classify(const char* p) {
    BlockMasks m;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i open = _mm_set1_epi8(0x7B);
    const __m128i close = _mm_set1_epi8(0x7D);
    const __m128i case_bit = _mm_set1_epi8(0x20);
    for (int i = 0; i < 4; ++i) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
        __m128i folded = _mm_or_si128(v, case_bit);
        auto bits = [](__m128i eq) {
            return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(eq)));
        };
        unsigned shift = 16U * static_cast<unsigned>(i);
        m.quote |= bits(_mm_cmpeq_epi8(v, quote)) << shift;
        m.backslash |= bits(_mm_cmpeq_epi8(v, backslash)) << shift;
        m.open |= bits(_mm_cmpeq_epi8(folded, open)) << shift;
        m.close |= bits(_mm_cmpeq_epi8(folded, close)) << shift;
    }
#else
    for (unsigned i = 0; i < block; ++i) {
        auto c = static_cast<unsigned char>(p[i]);
        std::uint64_t bit = std::uint64_t{1} << i;
        m.quote |= c == '"' ? bit : 0;
        m.backslash |= c == '\\' ? bit : 0;
        m.open |= (c | 0x20U) == 0x7BU ? bit : 0;
        m.close |= (c | 0x20U) == 0x7DU ? bit : 0;
    }
#endif
    return m;
}

#if SDSCPROV_SPLIT_AVX2
// The same with AVX2, two 32-byte loads a block; used when the CPU has it (checked once).
__attribute__((target("avx2"))) BlockMasks classify_avx2(const char* p) {
    const __m256i quote = _mm256_set1_epi8('"');
    const __m256i backslash = _mm256_set1_epi8('\\');
    const __m256i open = _mm256_set1_epi8(0x7B);
    const __m256i close = _mm256_set1_epi8(0x7D);
    const __m256i case_bit = _mm256_set1_epi8(0x20);
    BlockMasks m;
    for (int i = 0; i < 2; ++i) {
        __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * i));
        __m256i folded = _mm256_or_si256(v, case_bit);
        unsigned shift = 32U * static_cast<unsigned>(i);
        // (a lambda would not inherit this function's target)
        m.quote |= std::uint64_t{static_cast<std::uint32_t>(
                       _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, quote)))}
                   << shift;
        m.backslash |= std::uint64_t{static_cast<std::uint32_t>(
                           _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, backslash)))}
                       << shift;
        m.open |= std::uint64_t{static_cast<std::uint32_t>(
                      _mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, open)))}
                  << shift;
        m.close |= std::uint64_t{static_cast<std::uint32_t>(
                       _mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, close)))}
                   << shift;
    }
    return m;
}

bool has_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2") != 0;
    return yes;
}
#endif

// The characters a backslash escapes; `carry` is 1 when the previous block ended with an
// unescaped backslash and says the same of this block on return. Backslashes are rare in traces:
// each is looked at on its own.
std::uint64_t escaped_by(std::uint64_t backslash, std::uint64_t& carry) {
    if (backslash == 0 && carry == 0) {
        return 0;
    }
    std::uint64_t escaped = 0;
    if (carry != 0) {
        escaped = 1;
        backslash &= ~std::uint64_t{1}; // an escaped backslash escapes nothing
    }
    carry = 0;
    while (backslash != 0) {
        int i = __builtin_ctzll(backslash);
        if (i == 63) {
            carry = 1;
            break;
        }
        std::uint64_t next = std::uint64_t{1} << (i + 1);
        escaped |= next;
        backslash &= ~next;
        backslash &= backslash - 1;
    }
    return escaped;
}

// Bit i: the parity of the set bits at 0..i.
std::uint64_t prefix_xor(std::uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

// The scan of whole blocks, with the classification of a block given (inlined into each
// instruction set's loop).
template <BlockMasks (*Classify)(const char*)>
__attribute__((always_inline)) inline std::optional<std::uint64_t>
scan_loop(Splitter& s, const char* p, std::size_t blocks, std::uint64_t base,
          std::vector<std::uint64_t>& ends) {
    for (std::size_t b = 0; b < blocks; ++b, p += block, base += block) {
        BlockMasks m = Classify(p);
        std::uint64_t quotes = m.quote & ~escaped_by(m.backslash, s.escaped);
        std::uint64_t strings = prefix_xor(quotes) ^ s.in_string;
        s.in_string = static_cast<std::uint64_t>(static_cast<std::int64_t>(strings) >> 63);
        std::uint64_t structural = (m.open | m.close) & ~strings;
        while (structural != 0) {
            int i = __builtin_ctzll(structural);
            structural &= structural - 1;
            if ((m.open >> i) & 1U) {
                ++s.depth;
            } else if (--s.depth == 0) {
                ends.push_back(base + static_cast<std::uint64_t>(i));
            } else if (s.depth < 0) {
                return base + static_cast<std::uint64_t>(i);
            }
        }
    }
    return std::nullopt;
}

std::optional<std::uint64_t> scan_generic(Splitter& s, const char* p, std::size_t blocks,
                                          std::uint64_t base, std::vector<std::uint64_t>& ends) {
    return scan_loop<classify>(s, p, blocks, base, ends);
}

#if SDSCPROV_SPLIT_AVX2
__attribute__((target("avx2"))) std::optional<std::uint64_t>
scan_avx2(Splitter& s, const char* p, std::size_t blocks, std::uint64_t base,
          std::vector<std::uint64_t>& ends) {
    return scan_loop<classify_avx2>(s, p, blocks, base, ends);
}
#endif

} // namespace

std::optional<std::uint64_t> Splitter::scan(const char* p, std::size_t blocks, std::uint64_t base,
                                            std::vector<std::uint64_t>& ends) {
#if SDSCPROV_SPLIT_AVX2
    if (has_avx2()) {
        return scan_avx2(*this, p, blocks, base, ends);
    }
#endif
    return scan_generic(*this, p, blocks, base, ends);
}

std::optional<std::uint64_t> Splitter::scan_bytes(const char* p, std::size_t n, std::uint64_t base,
                                                  std::vector<std::uint64_t>& ends) {
    for (std::size_t i = 0; i < n; ++i) {
        auto c = static_cast<unsigned char>(p[i]);
        if (escaped != 0) {
            escaped = 0;
            if (c == '"' || c == '\\') {
                continue;
            }
        } else if (c == '\\') {
            escaped = 1;
            continue;
        }
        if (c == '"') {
            in_string = ~in_string;
            continue;
        }
        if (in_string != 0) {
            continue;
        }
        if ((c | 0x20U) == 0x7BU) {
            ++depth;
        } else if ((c | 0x20U) == 0x7DU) {
            if (--depth == 0) {
                ends.push_back(base + i);
            } else if (depth < 0) {
                return base + i;
            }
        }
    }
    return std::nullopt;
}

namespace {

#if defined(__SSE2__)
// How many bytes of [p, p + n) `equal` marks (n a multiple of 16), 16 at a time: each
// comparison's -1 bytes are subtracted from byte counters, which are summed (psadbw) before they
// can overflow. No popcount: SSE2 has none.
template <class Equal> std::size_t count_blocks(const char* p, std::size_t n, Equal equal) {
    const __m128i zero = _mm_setzero_si128();
    std::size_t count = 0;
    for (std::size_t i = 0; i < n;) {
        __m128i counters = zero;
        for (std::size_t stop = std::min(n, i + 255 * 16); i < stop; i += 16) {
            __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
            counters = _mm_sub_epi8(counters, equal(v));
        }
        __m128i sums = _mm_sad_epu8(counters, zero);
        count += static_cast<std::size_t>(_mm_cvtsi128_si64(sums)) +
                 static_cast<std::size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
    }
    return count;
}
#endif

} // namespace

std::size_t count_byte(const char* p, std::size_t n, char c) {
    std::size_t count = 0;
    std::size_t i = 0;
#if defined(__SSE2__)
    const __m128i needle = _mm_set1_epi8(c);
    i = n / 16 * 16;
    count = count_blocks(p, i, [&](__m128i v) { return _mm_cmpeq_epi8(v, needle); });
#endif
    for (; i < n; ++i) {
        count += p[i] == c;
    }
    return count;
}

std::size_t count_code_points(const char* p, std::size_t n) {
    std::size_t continuation = 0;
    std::size_t i = 0;
#if defined(__SSE2__)
    const __m128i top = _mm_set1_epi8(static_cast<char>(0xC0));
    const __m128i follow = _mm_set1_epi8(static_cast<char>(0x80));
    i = n / 16 * 16;
    continuation = count_blocks(
        p, i, [&](__m128i v) { return _mm_cmpeq_epi8(_mm_and_si128(v, top), follow); });
#endif
    for (; i < n; ++i) {
        continuation += (static_cast<unsigned char>(p[i]) & 0xC0U) == 0x80U;
    }
    return n - continuation;
}

} // namespace sdscprov::json_split
