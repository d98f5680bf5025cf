package htmlcheck

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// downloadWords are words that, first in a label, make it a call to
// download. The bool says whether the word also counts as the last word.
// Accents need not be listed twice: words are compared as read (see
// reading), without them.
var downloadWords = map[string]bool{
	"download": true, "downloads": false, "downloading": false, "downloaden": true,
	"descargar": true, "descarga": true, "descargas": false, "descárgalo": true, "descargalo": true,
	"descárgala": true, "descargue": true, "descárguelo": true, "descarguelo": true, "descárgate": true,
	"télécharger": true, "telecharger": true, "téléchargement": true, "telechargement": true,
	"téléchargez": true, "telechargez": true, "télécharge": true, "telecharge": true,
	"herunterladen": true, "runterladen": true,
	"scaricare": true, "scarica": true, "scaricalo": true, "scaricala": true, "scarichi": true,
	"baixar": true, "baixe": true, "transferir": true, "transfira": true, "descarregar": true, "descarregue": true,
	"скачать": true, "скачайте": true, "скачивание": true, "загрузить": true, "загрузите": true,
	"завантажити": true, "завантажте": true,
	"indir": true, "indirin": true,
	"pobierz": true, "pobieranie": true,
	"stáhnout": true, "stahnout": true, "stáhněte": true, "stiahnuť": true,
	"letöltés": true, "letöltése": true, "letöltöm": true,
	"nedladdning": true,
	"unduh":       true, "unduhan": false,
	"λήψη": true, "κατέβασμα": true, "κατεβάστε": true,
	"הורדה": true, "הורד": true,
	"डाउनलोड": true, "ডাউনলোড": true,
	"descarcă": true, "descărcați": true, "descărcare": true,
	"изтегли": true, "изтеглете": true, "изтегляне": true,
	"preuzmi": true, "preuzmite": true, "preuzimanje": true,
}

// downloadPhrases are word sequences that make a label a call to download
// when they start it (after filler) or end it.
var downloadPhrases = [][]string{
	{"get", "the", "file"}, {"get", "file"}, {"get", "your", "file"}, {"get", "this", "file"},
	{"grab", "the", "file"}, {"save", "the", "file"}, {"save", "file"}, {"save", "your", "file"},
	{"save", "to", "disk"}, {"save", "to", "device"}, {"save", "to", "your", "device"},
	{"get", "your", "copy"}, {"get", "a", "copy"}, {"get", "my", "copy"}, {"get", "a", "free", "copy"},
	{"get", "your", "free", "copy"},
	{"datei", "speichern"}, {"bestand", "opslaan"}, {"enregistrer", "le", "fichier"},
	{"guardar", "archivo"}, {"salvar", "arquivo"}, {"salva", "file"}, {"сохранить", "файл"},
	{"ladda", "ner"}, {"ladda", "ned"}, {"last", "ned"}, {"muat", "turun"},
	{"tải", "xuống"}, {"tải", "về"},
}

// spacelessDownloadWords are matched anywhere in a label.
var spacelessDownloadWords = []string{
	"ダウンロード", "下载", "下載", "다운로드", "내려받기", "تحميل", "تنزيل", "دانلود", "ดาวน์โหลด",
}

// spacelessPlurals are the plural endings of the spaceless words of
// scripts written with spaces between words, where the word takes
// prefixes and suffixes (Arabic, Persian): as "2M downloads" in English,
// a plural counts only as the whole label ("التحميلات", "دانلودها"),
// and "تنزيلات" not even then: it is also "sales", on every shop's menu.
var spacelessPlurals = map[string]string{"تحميل": "ات", "تنزيل": "ات", "دانلود": "ها"}

// spacelessSales are the spaceless words whose plural is another word.
var spacelessSales = map[string]bool{"تنزيل": true}

// countWords make a label with an Arabic or Persian download word a count
// ("2 مليون تنزيل", "بیش از ۲ میلیون دانلود"), as a digit does: the word
// counts then only as the label's first word.
var countWords = wordSet(`مليون ملايين ميليون ألف آلاف الف مليار هزار میلیون میلیارد`)

// otherSenses are the labels in which an Arabic download word means
// something else, when the label starts with them and has the word once:
// "تحميل" is also "load" (load more, loading, reload) and "تنزيل" also
// "reduction" (of prices). Such a label draws no call to download
// (docs/security.md, row 933).
var otherSenses = [][]string{
	{"تحميل", "المزيد"},                                         // load more
	{"جاري", "التحميل"}, {"جار", "التحميل"}, {"يتم", "التحميل"}, // loading
	{"إعادة", "التحميل"}, {"إعادة", "تحميل"}, {"اعادة", "التحميل"}, {"اعادة", "تحميل"}, // reload
	{"تنزيل", "الأسعار"}, {"تنزيل", "الاسعار"}, {"تنزيل", "أسعار"}, {"تنزيل", "اسعار"}, {"تنزيل", "السعر"}, // price cut
}

// leadFiller are words that may come before the download word of a call to
// action.
var leadFiller = wordSet(`free instant instantly start begin click tap press here to now please your
	the a direct directly fast quick secure safe one and or get latest full
	jetzt kostenlos kostenloser gratis sofort hier direkt
	ahora aquí aqui gratuita gratuito gratis
	maintenant ici gratuit gratuitement
	agora já grátis
	subito ora qui
	сейчас бесплатно здесь
	şimdi hemen ücretsiz
	teraz za darmo
	nu här gratis
	अभी मुफ्त
	sekarang gratis`)

// trailFiller are words that may come after the download word.
var trailFiller = wordSet(`now here free today again
	jetzt hier sofort kostenlos gratis
	ahora aquí aqui gratis
	maintenant ici gratuitement
	agora grátis
	subito ora gratis
	сейчас бесплатно
	şimdi hemen ücretsiz
	teraz nu här
	करें
	sekarang
	pdf zip epub mp3 mp4 docx xlsx csv png jpg apk exe dmg kb mb gb b`)

func wordSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// lexicon holds the word lists in one reading (see readings), as they are
// matched.
type lexicon struct {
	words     map[string]bool // downloadWords
	prefixes  map[string]bool // the proper prefixes of downloadWords, for words split in up to four parts
	phrases   [][]string
	spaceless []string
	// spacelessFirst are the first characters of spaceless: a label
	// without any has none of those words, spaced out or not.
	spacelessFirst map[rune]bool
	// plural and sales are spacelessPlurals and spacelessSales, and
	// counts countWords, read.
	plural map[string]string
	sales  map[string]bool
	counts map[string]bool
	senses [][]string // otherSenses, read
	inRun  []string   // words looked for inside letters spaced out ("D o w n l o a d n o w")
	lead   map[string]bool
	trail  map[string]bool
	// starts are the first two characters of every word, phrase and
	// spaceless word, with what is not a letter, digit or mark left out
	// (see mayMatch); startBits has the bit of each pair (startBit) set,
	// so that most pairs are ruled out without a map lookup.
	starts    map[[2]rune]bool
	startBits [startBitsLen / 64]uint64
}

// startBitsLen is the size of lexicon.startBits: with some 40 pairs, 4,096
// bits leave about one pair in a hundred to the map.
const startBitsLen = 4096

// startBit returns the bit of the pair a, b in lexicon.startBits.
func startBit(a, b rune) uint32 {
	return (uint32(a)*0x9e3779b1 ^ uint32(b)*0x85ebca77) >> 20
}

// maxSplit is the most parts a download word split by spaces, hyphens or
// elements ("Down load", "Do wn lo ad") is joined from.
const maxSplit = 4

// minRunWord is the shortest download word looked for inside a run of
// spaced-out letters, which may hold several words; shorter ones ("tải")
// would be found by chance.
const minRunWord = 5

// newLexicon returns the word lists read with read.
func newLexicon(read func(string) string) *lexicon {
	l := &lexicon{
		words:          map[string]bool{},
		prefixes:       map[string]bool{},
		spacelessFirst: map[rune]bool{},
		lead:           map[string]bool{},
		trail:          map[string]bool{},
	}
	for w, last := range downloadWords {
		w = read(w)
		l.words[w] = l.words[w] || last
		for i := range w {
			if i > 0 {
				l.prefixes[w[:i]] = true
			}
		}
		if utf8.RuneCountInString(w) >= minRunWord {
			l.inRun = append(l.inRun, w)
		}
	}
	for _, p := range downloadPhrases {
		rp := make([]string, len(p))
		for i, w := range p {
			rp[i] = read(w)
		}
		l.phrases = append(l.phrases, rp)
	}
	l.plural, l.sales, l.counts = map[string]string{}, map[string]bool{}, map[string]bool{}
	for _, word := range spacelessDownloadWords {
		w := read(word)
		l.inRun = append(l.inRun, w)
		w = compactLetters(w)
		l.spaceless = append(l.spaceless, w)
		r, _ := utf8.DecodeRuneInString(w)
		l.spacelessFirst[r] = true
		if suffix, ok := spacelessPlurals[word]; ok {
			l.plural[w] = compactLetters(read(suffix))
			l.sales[w] = spacelessSales[word]
		}
	}
	for w := range countWords {
		l.counts[read(w)] = true
	}
	for _, p := range otherSenses {
		rp := make([]string, len(p))
		for i, w := range p {
			rp[i] = read(w)
		}
		l.senses = append(l.senses, rp)
	}
	l.starts = map[[2]rune]bool{}
	addStart := func(w string) {
		var first [2]rune
		n := 0
		for _, r := range w {
			if isPairRune(r) {
				first[n] = r
				if n++; n == 2 {
					break
				}
			}
		}
		if n < 2 {
			// mayMatch looks for two characters; a word of one would
			// be found by chance in most labels anyway.
			panic(fmt.Sprintf("htmlcheck: the download word %q has fewer than two letters", w))
		}
		l.starts[first] = true
		bit := startBit(first[0], first[1])
		l.startBits[bit/64] |= 1 << (bit % 64)
	}
	for w := range l.words {
		addStart(w)
	}
	for _, p := range l.phrases {
		addStart(strings.Join(p, ""))
	}
	for _, w := range l.spaceless {
		addStart(w)
	}
	for w := range leadFiller {
		l.lead[read(w)] = true
	}
	for w := range trailFiller {
		l.trail[read(w)] = true
	}
	return l
}

// wordLists are the word lists in each reading that readings makes: the
// plain one, the skeleton (of the plain and of the unfolded reading) and
// the skeleton in capitals; letters are the letters of each of their
// entries (lexiconLetters).
type wordLists struct {
	plain, skeleton, upper *lexicon
	letters                [][]rune
}

// lexicons returns the word lists, read at the first call rather than
// when the program starts: reading them through the normalisation and
// skeleton tables takes milliseconds, which every command of the binary
// (and every server that checks no page) would pay otherwise.
var lexicons = sync.OnceValue(func() *wordLists {
	cache := readCache{}
	l := &wordLists{
		plain:    newLexicon(func(s string) string { p, _, _, _, _ := spell(s, cache); return p }),
		skeleton: newLexicon(func(s string) string { _, sp, _, _, _ := spell(s, cache); return sp }),
		upper:    newLexicon(func(s string) string { _, _, _, sc, _ := spell(s, cache); return sc }),
	}
	l.letters = lexiconLetters(l.plain, l.skeleton, l.upper)
	return l
})

// maxLabelWords is the longest label checked for its last word too.
const maxLabelWords = 12

// maxWordsRead bounds the words of a reading that are matched: a longer
// label is checked for its first word and for letters spaced out in its
// first maxWordsRead words, as one cut at maxLabel bytes is. (A label of
// a thousand short words, read in each of its orders, cost a 1 MiB page
// half a second.)
const maxWordsRead = 64

// downloadReading reports whether label, the text a page shows on a
// clickable element (or in CSS generated content), is a call to download,
// and returns the reading of it that is one. o says how the label is
// shown; cache, which may be nil, remembers how characters read.
//
// A clickable element is a download button when its label is a call to
// download. Prose that merely mentions downloads ("2M downloads", "read the
// download guide") must pass, so the label is read as a visitor reads it
// (see readings), split into words, and only these count:
//
//   - the first word, after leading filler ("Free download", "⬇ Download
//     now", "Click here to download", "Jetzt herunterladen",
//     "Télécharger maintenant", "Download the report (PDF)");
//   - the last word, before trailing filler, when it is a verb or a bare
//     noun in downloadWords but not a plural or count ("PDF herunterladen",
//     "Şimdi indir"; not "2M downloads");
//   - a phrase such as "get the file" at the start or the end;
//   - for scripts written without spaces between words (Japanese, Chinese,
//     Korean, Thai) and for Arabic and Persian, where the word takes
//     prefixes, the word anywhere in the label.
//
// Before that, letters spaced out one by one ("D o w n l o a d",
// "D-o-w-n-l-o-a-d") are joined into one word, which counts when a
// download word is in it ("F R E E D O W N L O A D"), and a download word
// split in up to four parts ("Down load") is joined again.
//
// Labels longer than 12 words (a whole card that is a link) and questions
// ("How do I download it?") are checked for their first word only.
func downloadReading(label string, o labelOpts, cache readCache) (string, bool) {
	o.reversed = o.reversed || strings.Contains(label, rightToLeftOverride)
	// Of a label of more than maxWordsRead words, only the first ones
	// are matched (see maxWordsRead): only they are read, and, when it
	// may be drawn reversed, the last ones reversed.
	head, cut := firstWords(label, maxWordsRead)
	o.truncated = o.truncated || cut
	var buf [8]form // most labels: no allocation
	forms := readings(buf[:0], head, false, cache)
	if o.reversed {
		tail := label
		if cut {
			tail = lastWords(label, maxWordsRead)
		}
		n := len(forms)
		forms = readings(forms, tail, false, cache)
		for i := n; i < len(forms); i++ {
			forms[i].text = reverseRunes(forms[i].text)
		}
	}
	for _, f := range forms {
		if f.lex.matches(f.text, o) {
			return f.text, true
		}
	}
	return "", false
}

// firstWords returns the start of s up to its n-th word (see splitWords),
// and whether s has more.
func firstWords(s string, n int) (string, bool) {
	if len(s) < 2*n {
		return s, false // too short to have more
	}
	words, in := 0, false
	for i, r := range s {
		w := isWordRune(r)
		if w && !in {
			if words == n {
				return s[:i], true
			}
			words++
		}
		in = w
	}
	return s, false
}

// lastWords returns the end of s from its n-th word from the end.
func lastWords(s string, n int) string {
	words, in := 0, false
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		w := isWordRune(r)
		if w && !in {
			if words == n {
				return s[i:]
			}
			words++
		}
		in = w
		i -= size
	}
	return s
}

// labelOpts says how a label is shown.
type labelOpts struct {
	truncated bool // it was cut short
	reversed  bool // it may be drawn right to left (see readings)
	// anywhere says that the text may be drawn on any element (CSS
	// generated text), not on a known clickable one, so it must be a
	// call to action to count: a verb ("Download now"), not a noun
	// ("Downloads: 2M" on a statistic).
	anywhere bool
	// open are the explicit formatting characters left open before the
	// label, in the text of its paragraph (see checker.followBidi).
	open string
}

// hasSpacelessFirst reports whether form has one of l.spacelessFirst: a
// map lookup per character, where strings.ContainsAny searched the list
// for each.
func (l *lexicon) hasSpacelessFirst(form string) bool {
	for _, r := range form {
		if l.spacelessFirst[r] {
			return true
		}
	}
	return false
}

// isWordRune reports whether r is part of a word: a letter, a digit or a
// mark (splitWords).
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isLengthMark reports whether r, in a reading, is katakana's long vowel
// mark (ー, a letter, which ｰ reads as) or the ideograph "一" that the
// skeleton reads it as, or that stands for it. Doubled ("ダウンローード"),
// moved ("ダーウンロード") or drawn as a dash, which is no letter
// ("ダウンロ-ド"), it leaves the word as readable: the words of scripts
// written without spaces are compared without it (compactLetters), and
// mayMatch looks past it.
func isLengthMark(r rune) bool { return r == 'ー' || r == '一' }

// isPairRune reports whether mayMatch counts r: a word character, but a
// length mark.
func isPairRune(r rune) bool { return isWordRune(r) && !isLengthMark(r) }

// compactLetters returns the letters, digits and marks of s without what
// separates them and without length marks: how the words of scripts
// written without spaces are compared (lexicon.spaceless).
func compactLetters(s string) string {
	return strings.Map(func(r rune) rune {
		if isPairRune(r) {
			return r
		}
		return -1
	}, s)
}

// mayMatch reports whether form, a reading of a label, can be a call to
// download in lexicon l; when it returns false, matches would too, and
// most labels are ruled out at a few nanoseconds per character.
//
// Every way matches finds a call to download finds a word, a phrase or a
// spaceless word of l in form's letters, digits and marks taken together
// without what separates them: a word or phrase among form's words, a
// word split in parts or spelt out letter by letter, a spaceless word in
// form's compact letters. So the first two of its characters are next to
// each other there.
func (l *lexicon) mayMatch(form string) bool {
	s := pairScan{lex: l, prev: -1}
	return s.feed(form)
}

// pairScan is mayMatch fed a reading in pieces: the pieces' characters
// taken together are scanned as mayMatch scans form.
type pairScan struct {
	lex  *lexicon
	prev rune // the last word character fed, or -1
}

// feed scans s after what was fed before and reports whether two
// characters next to each other, so far, start an entry of the lexicon.
func (p *pairScan) feed(s string) bool {
	for _, r := range s {
		if !isPairRune(r) {
			continue
		}
		if p.prev >= 0 {
			if bit := startBit(p.prev, r); p.lex.startBits[bit/64]&(1<<(bit%64)) != 0 && p.lex.starts[[2]rune{p.prev, r}] {
				return true
			}
		}
		p.prev = r
	}
	return false
}

// mayReadAsDownload reports whether any reading of label that readings
// makes (not reversed) can be a call to download: false when mayMatch
// would rule out every one. It reads each character once and builds no
// string, where readings builds the four readings of a label that is
// not ASCII before mayMatch rules them out; a page of thousands of
// distinct labels spent most of its check there ("distinct links side
// by side" in hostile_test.go). The skeleton before lower-casing is
// scanned even where readings leaves it out, which only makes the answer
// true more often. The checker asks it for a new label that is not ASCII
// (checker.downloadReading), before it copies the label into a string.
func mayReadAsDownload(label []byte, cache readCache) bool {
	d := newDownloadScan(cache)
	for i := 0; i < len(label); {
		r, n := utf8.DecodeRune(label[i:])
		i += n
		if d.next(r, n) {
			return true
		}
	}
	return false
}

// downloadScan is mayReadAsDownload's state: one pairScan for each
// reading that readings makes.
type downloadScan struct {
	plain, skelPlain, skelUnfolded, skelUpper pairScan
	cache                                     readCache
}

func newDownloadScan(cache readCache) downloadScan {
	lx := lexicons()
	return downloadScan{
		plain:        pairScan{lex: lx.plain, prev: -1},
		skelPlain:    pairScan{lex: lx.skeleton, prev: -1},
		skelUnfolded: pairScan{lex: lx.skeleton, prev: -1},
		skelUpper:    pairScan{lex: lx.upper, prev: -1},
		cache:        cache,
	}
}

// next feeds the label's next character, r, n bytes long, and reports
// whether a reading may be a call to download so far.
func (d *downloadScan) next(r rune, n int) bool {
	if r == utf8.RuneError && n == 1 {
		r = ' ' // as spell reads invalid UTF-8
	}
	rr := d.cache.get(r)
	return d.plain.feed(rr.plain) || d.skelPlain.feed(rr.skelPlain) || d.skelUnfolded.feed(rr.skelUnfolded) || d.skelUpper.feed(rr.skelUpper)
}

// matches reports whether form, a reading of a label, is a call to
// download in lexicon l.
func (l *lexicon) matches(form string, o labelOpts) bool {
	return l.mayMatch(form) && l.matchWords(form, o)
}

// matchWords is matches without mayMatch first.
func (l *lexicon) matchWords(form string, o labelOpts) bool {
	if l.hasSpacelessFirst(form) {
		// The scripts of these words are written without spaces inside
		// words, so spaces or dots inside one ("다운 로드", "下·载")
		// only break it up for the checker.
		compact := compactLetters(form)
		for _, w := range l.spaceless {
			if l.spacelessIn(form, compact, w) {
				return true
			}
		}
	}
	var buf [maxWordsRead]string // no allocation
	split, more := splitWords(buf[:0], form)
	if more {
		o.truncated = true
	}
	words, spaced := l.join(split)
	if spaced {
		return true
	}
	for len(words) > 0 {
		first := 0
		for ; first < len(words); first++ {
			if l.phraseAt(words, first) {
				return true
			}
			if !l.lead[words[first]] {
				break
			}
		}
		if first < len(words) {
			if verb, ok := l.words[words[first]]; ok && (verb || !o.anywhere) {
				return true
			}
		}
		if o.truncated || len(words) > maxLabelWords || strings.HasSuffix(strings.TrimSpace(form), "?") {
			// A card or a question ("How do I download it?") is not a
			// call to action, unless it starts with one.
			return false
		}
		last := len(words) - 1
		for last >= 0 && (l.trail[words[last]] || startsWithDigit(words[last])) {
			last--
		}
		if last < first {
			return false
		}
		if l.words[words[last]] || l.phraseEndsAt(words, last) {
			return true
		}

		// Words that a reader does not read with the verb around it, on
		// both sides ("א Download א", "١ Download ١", "ab ab Download
		// ab ab", "xyz Download xyz"), are decoration: the label is read
		// without them.
		if last-first < 2 || words[first] != words[last] && (!decoration(words[first]) || !decoration(words[last])) {
			return false
		}
		words = words[first+1 : last]
	}
	return false
}

// decoration reports whether the word w, at the start or the end of a
// label, reads as decoration rather than as a word of the label: one or
// two characters, one character repeated ("xxx", "ʘʘʘ"), or letters that
// read as symbols (phonetic letters: "ꜜꜜꜜ" looks like arrows). Words of
// another script are words all the same ("PC 下载 FAQ" is a link to
// questions, as "Our download stats" is to figures).
func decoration(w string) bool {
	if utf8.RuneCountInString(w) <= 2 || symbolLetters(w) {
		return true
	}
	r, n := utf8.DecodeRuneInString(w)
	return strings.Count(w, string(r)) == len(w)/n
}

// symbolRanges are the blocks of letters that no language writes its
// everyday words in alone: phonetic letters and their modifiers, and the
// rarer Latin extensions (clicks such as ǁ, letters such as ʘ and ꜜ).
var symbolRanges = &unicode.RangeTable{R16: []unicode.Range16{
	{Lo: 0x0180, Hi: 0x01c3, Stride: 1}, // Latin extended-B up to the clicks ǀ ǁ ǂ ǃ (before Pinyin's and Romanian's letters)
	{Lo: 0x0250, Hi: 0x02ff, Stride: 1}, // IPA extensions, spacing modifier letters
	{Lo: 0x1d00, Hi: 0x1dbf, Stride: 1}, // phonetic extensions
	{Lo: 0x2c60, Hi: 0x2c7f, Stride: 1}, // Latin extended-C
	{Lo: 0xa720, Hi: 0xa7ff, Stride: 1}, // Latin extended-D
	{Lo: 0xab30, Hi: 0xab6f, Stride: 1}, // Latin extended-E
}}

// symbolLetters reports whether every letter of w is in symbolRanges.
func symbolLetters(w string) bool {
	letters := false
	for _, r := range w {
		if unicode.IsLetter(r) {
			if !unicode.Is(symbolRanges, r) {
				return false
			}
			letters = true
		}
	}
	return letters
}

// join joins letters spaced out one by one into words, and download words
// split in up to four parts into one. It reports whether a run of spaced
// letters has a download word in it.
func (l *lexicon) join(words []string) ([]string, bool) {
	var out []string // nil while nothing is joined
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && singleLetter(words[j]) {
			j++
		}
		joined, n := "", 0
		switch {
		case j-i >= 2:
			joined, n = strings.Join(words[i:j], ""), j-i
			for _, w := range l.inRun {
				if strings.Contains(joined, w) {
					return nil, true
				}
			}
		case l.prefixes[words[i]]:
			// The parts joined in a buffer: a lookup by string(buf)
			// allocates nothing, and most tries find no word.
			var buf [64]byte
			b := append(buf[:0], words[i]...)
			for k := i + 1; k < min(i+maxSplit, len(words)); k++ {
				if b = append(b, words[k]...); l.words[string(b)] {
					joined, n = string(b), k+1-i
					break
				}
			}
		}
		if n == 0 {
			if out != nil {
				out = append(out, words[i])
			}
			i++
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(words)), words[:i]...)
		}
		out = append(out, joined)
		i += n
	}
	if out == nil {
		return words, false
	}
	return out, false
}

// spacelessIn reports whether the spaceless word w is in compact, the
// compact letters of form, as a call to download: anywhere for the
// scripts written without spaces; for Arabic and Persian, not as a
// plural but when it is the whole label (never "تنزيلات", "sales"), and
// in a label with a digit or a count word only as its first word.
func (l *lexicon) spacelessIn(form, compact, w string) bool {
	suffix, ok := l.plural[w]
	if !ok {
		return strings.Contains(compact, w)
	}
	var buf [maxWordsRead]string
	words, more := splitWords(buf[:0], form)
	counted := false
	for _, word := range words {
		if l.counts[word] || strings.IndexFunc(word, unicode.IsDigit) >= 0 {
			counted = true
			break
		}
	}
	first := 0
	if len(words) > 0 {
		first = len(compactLetters(words[0]))
	}
	if strings.Count(compact, w) == 1 {
		for _, p := range l.senses {
			if len(words) >= len(p) && equalWords(words[:len(p)], p) {
				return false // "تحميل المزيد", load more
			}
		}
	}
	for k := 0; ; {
		i := strings.Index(compact[k:], w)
		if i < 0 {
			return false
		}
		i += k
		k = i + len(w)
		plural := suffix != "" && strings.HasPrefix(compact[k:], suffix)
		switch {
		case plural && (l.sales[w] || len(words) > 1 || more):
		case counted && i >= first:
		default:
			return true
		}
	}
}

// splitWords appends the words of s to words, up to cap(words) of them:
// runs of letters, digits and marks (strings.FieldsFunc, without its
// allocation). more reports that s has more words than that.
func splitWords(words []string, s string) (_ []string, more bool) {
	start := -1
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				if len(words) == cap(words) {
					return words, true
				}
				start = i
			}
			continue
		}
		if start >= 0 {
			words = append(words, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words, false
}

func singleLetter(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && unicode.IsLetter(r)
}

func startsWithDigit(w string) bool { return w != "" && w[0] >= '0' && w[0] <= '9' }

// phraseAt reports whether a download phrase starts at words[i].
func (l *lexicon) phraseAt(words []string, i int) bool {
	for _, p := range l.phrases {
		if i+len(p) <= len(words) && equalWords(words[i:i+len(p)], p) {
			return true
		}
	}
	return false
}

// phraseEndsAt reports whether a download phrase ends at words[i].
func (l *lexicon) phraseEndsAt(words []string, i int) bool {
	for _, p := range l.phrases {
		if i+1 >= len(p) && equalWords(words[i+1-len(p):i+1], p) {
			return true
		}
	}
	return false
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
