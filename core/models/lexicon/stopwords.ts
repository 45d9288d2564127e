/**
 * Function words of German and English: they carry no topic, so the embedder gives them no weight and
 * the language detector counts them. Written for this project (not taken from a dictionary).
 */
import type { LexiconLanguage } from "./lexicon.js";

const GERMAN = `
ab aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes auch auf aus bei
beim bin bis bist da damit dann das dass dem den denn der des dessen deren die dies diese diesem diesen dieser
dieses doch dort du durch ein eine einem einen einer eines einig einige einigem einigen einiger er es etwas euch
euer eure für gegen gewesen hab habe haben hat hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre ihrem
ihren ihrer ihres im in indem ins ist jede jedem jeden jeder jedes jene jenem jenen jener jenes jetzt kann kein
keine keinem keinen keiner können könnte man manche manchem manchen mancher manches mein meine meinem
meinen meiner mich mir mit muss musste nach nicht nichts noch nun nur ob oder ohne sehr sein seine seinem seinen
seiner seines selbst sich sie sind so solche solchem solchen solcher soll sollte sondern sonst über um und uns
unser unsere unter viel vom von vor war waren warst was weg weil weiter welche welchem welchen welcher welches
wenn werde werden wie wieder will wir wird wirst wo wollen wollte würde würden zu zum zur zwar zwischen wer wem
wen wessen wann warum wieso weshalb womit wodurch worauf woran wovon wurde wurden worden ist's gibt gab sei seid
wofür wozu woher wohin worin worüber wogegen wovor woraus inwiefern darauf daran davon dazu dafür dabei darin
daher deshalb deswegen jedoch sowie sowohl bereits schon immer etwa ebenfalls nämlich mehr sehr dort denen
`;

const ENGLISH = `
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on
once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom whose why will with would you your yours yourself yourselves also many much may might must shall
s t don didn doesn isn wasn aren weren won wouldn couldn shouldn let
`;

export const STOPWORDS: Readonly<Record<LexiconLanguage, ReadonlySet<string>>> = {
  de: new Set(GERMAN.split(/\s+/).filter((word) => word.length > 0)),
  en: new Set(ENGLISH.split(/\s+/).filter((word) => word.length > 0)),
};
