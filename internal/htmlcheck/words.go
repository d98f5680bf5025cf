package htmlcheck

import (
	"strings"
	"unicode"
)

// downloadWords are words that, first in a label, make it a call to
// download. The bool says whether the word also counts as the last word.
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
	"nedladdning": true, "ladda": false,
	"unduh": true, "unduhan": false,
	"λήψη": true, "κατέβασμα": true, "κατεβάστε": true,
	"הורדה": true, "הורד": true,
	"डाउनलोड": true,
	"tải":     false,
}

// downloadPhrases are word sequences that make a label a call to download
// when they start it (after filler) or end it.
var downloadPhrases = [][]string{
	{"get", "the", "file"}, {"get", "file"}, {"get", "your", "file"}, {"get", "this", "file"},
	{"grab", "the", "file"}, {"save", "the", "file"},
	{"ladda", "ner"}, {"ladda", "ned"}, {"last", "ned"}, {"muat", "turun"},
	{"tải", "xuống"}, {"tải", "về"},
}

// spacelessDownloadWords are matched anywhere in a label.
var spacelessDownloadWords = []string{
	"ダウンロード", "下载", "下載", "다운로드", "내려받기", "تحميل", "تنزيل", "دانلود", "ดาวน์โหลด",
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

// maxLabelWords is the longest label checked for its last word too.
const maxLabelWords = 12

// isDownloadLabel reports whether label, the text of a clickable element
// or its value, aria-label or title, is a call to download; truncated says
// the label was cut short.
//
// A clickable element is a download button when its label is a call to
// download. Prose that merely mentions downloads ("2M downloads", "read the
// download guide") must pass, so the label is split into words and only
// these count:
//
//   - the first word, after leading filler ("Free download", "⬇ Download
//     now", "Click here to download", "Jetzt herunterladen",
//     "Télécharger maintenant", "Download the report (PDF)");
//   - the last word, before trailing filler, when it is a verb or a bare
//     noun in downloadWords but not a plural or count ("PDF herunterladen",
//     "Şimdi indir"; not "2M downloads");
//   - a phrase such as "get the file" at the start;
//   - for scripts written without spaces between words (Japanese, Chinese,
//     Korean, Thai) and for Arabic and Persian, where the word takes
//     prefixes, the word anywhere in the label.
//
// Labels longer than 12 words (a whole card that is a link) and questions
// ("How do I download it?") are checked for their first word only.
func isDownloadLabel(label []byte, truncated bool) bool {
	lower := strings.ToLower(strings.ReplaceAll(strings.ToValidUTF8(string(label), " "), "İ", "i"))
	for _, w := range spacelessDownloadWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	words := strings.FieldsFunc(lower, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
	if len(words) == 0 {
		return false
	}
	first := 0
	for ; first < len(words); first++ {
		if phraseAt(words, first) {
			return true
		}
		if !leadFiller[words[first]] {
			break
		}
	}
	if first < len(words) {
		if _, ok := downloadWords[words[first]]; ok && words[first] != "ladda" && words[first] != "tải" {
			return true
		}
	}
	if truncated || len(words) > maxLabelWords || strings.HasSuffix(strings.TrimSpace(lower), "?") {
		// A card or a question ("How do I download it?") is not a call
		// to action, unless it starts with one.
		return false
	}
	last := len(words) - 1
	for last >= 0 && (trailFiller[words[last]] || startsWithDigit(words[last])) {
		last--
	}
	if last < 0 {
		return false
	}
	if downloadWords[words[last]] {
		return true
	}
	return phraseEndsAt(words, last)
}

func startsWithDigit(w string) bool { return w != "" && w[0] >= '0' && w[0] <= '9' }

// phraseAt reports whether a download phrase starts at words[i].
func phraseAt(words []string, i int) bool {
	for _, p := range downloadPhrases {
		if i+len(p) <= len(words) && equalWords(words[i:i+len(p)], p) {
			return true
		}
	}
	return false
}

// phraseEndsAt reports whether a download phrase ends at words[i].
func phraseEndsAt(words []string, i int) bool {
	for _, p := range downloadPhrases {
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
